/// Did-you-mean suggestions for names a user typed: strategies, options, config keys, columns,
/// fields, allergens. Every layer that rejects a name offers the closest known one the same way.

/// " (did you mean 'x'?)" for the closest candidate within a small edit distance, or "".
package func didYouMean(_ word: String, _ candidates: [String]) -> String {
  guard let best = closestMatch(word, candidates) else { return "" }
  return " (did you mean '\(best)'?)"
}

/// The candidate closest to `word` by edit distance, if close enough to be a likely typo.
package func closestMatch(_ word: String, _ candidates: [String]) -> String? {
  var best: (String, Int)?
  for c in candidates {
    let d = editDistance(word.lowercased(), c.lowercased())
    if d <= max(1, min(word.count, c.count) / 3 + 1), best == nil || d < best!.1 { best = (c, d) }
  }
  return best?.0
}

/// Levenshtein distance over Unicode scalars.
package func editDistance(_ a: String, _ b: String) -> Int {
  let a = Array(a.unicodeScalars)
  let b = Array(b.unicodeScalars)
  if a.isEmpty { return b.count }
  if b.isEmpty { return a.count }
  var prev = Array(0...b.count)
  var cur = prev
  for i in 1...a.count {
    cur[0] = i
    for j in 1...b.count {
      cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
    }
    swap(&prev, &cur)
  }
  return prev[b.count]
}
