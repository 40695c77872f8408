import DeckBase
import DeckCore
import DeckIO

extension DeckRules {
  /// The config's "deck" section over the default rules, checked as a whole.
  static func parse(_ deck: JSONValue) throws(DeckIOError) -> DeckRules {
    _ = try deck.requireObject(field: "deck")
    try deck.rejectUnknownKeys(allowed: MenuDeckConfig.deckKeys, in: "the deck rules")
    func int(_ key: String, in range: ClosedRange<Int>) throws(DeckIOError) -> Int? {
      guard let v = try deck.optionalValue(at: key) else { return nil }
      guard let text = v.numberText, let n = Int(text) ?? beyondInt(text), n >= range.lowerBound
      else {
        throw v.error("'deck.\(key)' must be a whole number \(range.lowerBound) or more")
      }
      guard n <= range.upperBound else {
        throw v.error(
          "'deck.\(key)' is \(text), more than the limit \(range.upperBound); give a whole "
            + "number from \(range.lowerBound) to \(range.upperBound)")
      }
      return n
    }
    var rules = DeckRules()
    if let n = try int("size", in: Limits.deckSize) { rules.size = n }
    rules.maxPerCategory = try maxPerCategory(deck, default: rules.maxPerCategory)
    if let b = try deck.optionalBool(at: "avoid_adjacent_category") {
      rules.avoidAdjacentCategory = b
    }
    rules.pinned = try deck.stringArray(at: "pinned")
    rules.excluded = try deck.stringArray(at: "excluded")
    if let n = try int("repeat_pick_days", in: Limits.ruleDays) { rules.repeatPickDays = n }
    if let n = try int("cooldown_days", in: Limits.ruleDays) { rules.cooldownDays = n }
    if let n = try int("reshow_days", in: Limits.ruleDays) { rules.reshowDays = n }
    do {
      try rules.validate()
    } catch {
      throw deck.error(error.description)
    }
    return rules
  }

  /// "max_per_category": a whole number, or null for no cap; absent keeps `current`.
  private static func maxPerCategory(_ deck: JSONValue, default current: Int?) throws(DeckIOError)
    -> Int?
  {
    if let v = try deck.optionalValue(at: "max_per_category") {
      guard let text = v.numberText, let n = Int(text) ?? beyondInt(text), n >= 1 else {
        throw v.error(
          "'deck.max_per_category' must be a whole number 1 or more (or null for no cap)")
      }
      guard n <= Limits.deckSize.upperBound else {
        throw v.error(
          "'deck.max_per_category' is \(text), more than the limit "
            + "\(Limits.deckSize.upperBound); give a whole number from 1 to "
            + "\(Limits.deckSize.upperBound) (or null for no cap)")
      }
      return n
    } else if deck["max_per_category"]?.isNull == true {
      return nil
    }
    return current
  }
}

/// `Int.max` for a whole number written with more digits than an `Int` holds (so that it is
/// reported as over its limit), else nil.
func beyondInt(_ text: String) -> Int? {
  !text.isEmpty && text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) ? Int.max : nil
}
