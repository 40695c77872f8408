import DeckBase
import DeckCore
import DeckIO

extension DeckRules {
  /// The config's "deck" section over the default rules, checked as a whole.
  package static func parse(_ deck: JSONValue) throws(DeckIOError) -> DeckRules {
    _ = try deck.requireObject(field: "deck")
    try deck.rejectUnknownKeys(allowed: MenuDeckConfig.deckKeys, in: "the deck rules")
    func int(_ key: String, in range: ClosedRange<Int>) throws(DeckIOError) -> Int? {
      guard let v = try deck.optionalValue(at: key) else { return nil }
      return try wholeNumber(v, "deck.\(key)", in: range)
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
      return try wholeNumber(
        v, "deck.max_per_category", in: Limits.deckSize, or: "null for no cap")
    } else if deck["max_per_category"]?.isNull == true {
      return nil
    }
    return current
  }
}

/// The whole number `v` of config key `key` within `range` (`or`: what else it may be, for the
/// message), or a data error at its place: "'deck.size': '0' is out of range: give a whole
/// number from 1 to 10000". A whole number is one in any form JSON writes (`1e3` is 1000), and
/// one too large for an Int (`1e30`) is out of range too; the message shows the file's text.
package func wholeNumber(
  _ v: JSONValue, _ key: String, in range: ClosedRange<Int>, or other: String? = nil
) throws(DeckIOError) -> Int {
  let expected = Limits.span(range) + (other.map { " (or \($0))" } ?? "")
  guard let text = v.numberText else {
    throw v.error("'\(key)' is \(v.typeDescription), not a whole number; give \(expected)")
  }
  switch RangeText.whole(text, as: Int.self) {
  case .value(let n) where range.contains(n):
    return n
  case .value, .outOfRange:
    throw v.error("'\(key)': " + RangeText.outOfRange(text, give: expected))
  case .notWhole:
    throw v.error("'\(key)': " + RangeText.not("a whole number", text, give: expected))
  }
}
