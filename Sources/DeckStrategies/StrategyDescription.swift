import DeckCore

/// What a strategy says about itself: shown by `menudeck strategies` and used to check options.
public struct StrategyDescription: Sendable, Equatable {
  public let identifier: String
  public let summary: String
  public let options: [OptionSpec]
  public let examples: [StrategyExample]

  public init(
    identifier: String, summary: String, options: [OptionSpec] = [],
    examples: [StrategyExample] = []
  ) {
    self.identifier = identifier
    self.summary = summary
    self.options = options
    self.examples = examples
  }
}

/// Errors of the strategy layer.
public enum StrategyError: Error, Equatable, Sendable, CustomStringConvertible {
  case unknownStrategy(String, known: [String])
  case unknownOption(strategy: String, key: String, known: [String])
  case invalidOption(strategy: String, key: String, value: String, expected: String)
  case failed(strategy: String, message: String)
  /// An external plugin failed (see `PluginFault` for the kinds).
  case plugin(PluginFault)

  public var description: String {
    switch self {
    case .unknownStrategy(let name, let known):
      return "unknown strategy '\(name)'\(didYouMean(name, known)); valid strategies: "
        + known.joined(separator: ", ")
    case .unknownOption(let strategy, let key, let known):
      let valid =
        known.isEmpty ? "it takes no options" : "valid options: " + known.joined(separator: ", ")
      return "strategy '\(strategy)' has no option '\(key)'\(didYouMean(key, known)); \(valid)"
    case .invalidOption(let strategy, let key, let value, let expected):
      return "strategy '\(strategy)' option '\(key)': '\(value)' is not \(expected)"
    case .failed(let strategy, let message):
      return "strategy '\(strategy)': \(message)"
    case .plugin(let fault):
      return "strategy '\(fault.plugin)': \(fault.request): \(fault.message)"
    }
  }
}

/// " (did you mean 'x'?)" for the closest candidate within a small edit distance, or "".
public func didYouMean(_ word: String, _ candidates: [String]) -> String {
  guard let best = closestMatch(word, candidates) else { return "" }
  return " (did you mean '\(best)'?)"
}

/// The candidate closest to `word` by edit distance, if close enough to be a likely typo.
public func closestMatch(_ word: String, _ candidates: [String]) -> String? {
  var best: (String, Int)?
  for c in candidates {
    let d = editDistance(word.lowercased(), c.lowercased())
    if d <= max(1, min(word.count, c.count) / 3 + 1), best == nil || d < best!.1 { best = (c, d) }
  }
  return best?.0
}

/// Levenshtein distance over Unicode scalars.
public func editDistance(_ a: String, _ b: String) -> Int {
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
