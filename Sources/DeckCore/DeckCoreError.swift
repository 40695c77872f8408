/// Errors raised by the core deck rules and model validation.
public enum DeckCoreError: Error, Equatable, Sendable, CustomStringConvertible {
  /// A drag that cannot be decided (e.g. width <= 0).
  case invalidDrag(String)
  /// A catalog that breaks a model rule; `item` is the 0-based position in the catalog.
  case invalidCatalog(item: Int?, message: String)
  /// Deck rules with impossible values.
  case invalidRules(String)
  /// A restaurant rule that cannot be applied: `rule` is its 0-based index in
  /// `DeckRules.restaurantRules`, `field` the config field at fault ("dish", "pin", "boost",
  /// "valid_until"...), `problem` what is wrong (with the unknown name, for a did-you-mean).
  case invalidRestaurantRule(rule: Int, field: String, problem: RestaurantRuleProblem)
  /// A history snapshot that cannot be used as asked (merged twice, too recent for the date,
  /// counts that do not fit).
  case invalidSnapshot(String)
  /// Memory for a history could not be had: `what` is what was being built ("the history of
  /// 12 diners"), `bytes` the size of the block the system refused.
  case outOfMemory(what: String, bytes: Int)

  public var description: String {
    switch self {
    case .invalidDrag(let m): return m
    case .invalidCatalog(let item, let m):
      if let item { return "item \(item + 1): \(m)" }
      return m
    case .invalidRules(let m): return m
    case .invalidRestaurantRule(let rule, let field, let problem):
      return "rule \(rule + 1), \(field): \(problem)"
    case .invalidSnapshot(let m): return m
    case .outOfMemory(let what, let bytes):
      return "out of memory building \(what) (a block of \(bytes) bytes was refused); give "
        + "menudeck more memory (see 'ulimit -v' and the container's memory limit) or fewer "
        + "swipe logs"
    }
  }
}
