import DeckCore
import DeckEvaluation
import DeckStrategies

/// The texts of a comparison's options that need no command line to read: `--k`'s cut-offs,
/// a `--run` value, a `--grid` scope.
extension CompareLogs {
  /// `--k 1,5,10`: whole numbers from 1 to the largest deck, ascending, at most
  /// `OfflineEvaluation.maxCutoffs` of them.
  package static func cutoffs(_ text: String) throws -> [Int] {
    let parts = text.split(separator: ",", omittingEmptySubsequences: false)
    var cutoffs: [Int] = []
    for part in parts {
      guard !part.isEmpty, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
        throw JobError.usage(
          "'--k' takes cut-offs as whole numbers separated by commas, e.g. 1,5,10; got '\(text)'")
      }
      guard let k = Int(part), Limits.deckSize.contains(k) else {
        throw Limits.outOfRange("k", String(part), give: Limits.span(Limits.deckSize))
      }
      cutoffs.append(k)
    }
    guard cutoffs.count <= OfflineEvaluation.maxCutoffs else {
      throw JobError.usage(
        "'--k' takes at most \(OfflineEvaluation.maxCutoffs) cut-offs (each adds five metrics per"
          + " strategy), got \(cutoffs.count)")
    }
    for (a, b) in zip(cutoffs, cutoffs.dropFirst()) where a >= b {
      if a == b { throw JobError.usage("'--k' gives the cut-off \(a) twice; give each once") }
      let sorted = Array(Set(cutoffs)).sorted().map(String.init).joined(separator: ",")
      throw JobError.usage("'--k' takes its cut-offs in ascending order: give \(sorted)")
    }
    return cutoffs
  }

  /// `--run VALUE`: `NAME=FILE`, or a file alone (then named by its tag). A value whose part
  /// before the first `=` is empty or holds a `/` is a file alone.
  package static func runArgument(_ value: String) -> (name: String?, path: String) {
    guard let eq = value.firstIndex(of: "="), eq != value.startIndex,
      !value[..<eq].contains("/")
    else { return (nil, value) }
    return (String(value[..<eq]), String(value[value.index(after: eq)...]))
  }
}

extension CompareTuning {
  /// Whether `--grid SCOPE.KEY=...` is for `named`: its name, its base name, or the built-in
  /// it uses.
  package static func matches(_ scope: String, _ named: NamedStrategy) -> Bool {
    scope == named.name || scope == Tuning.baseName(named)
      || (named.plugin == nil && scope == named.use)
  }
}
