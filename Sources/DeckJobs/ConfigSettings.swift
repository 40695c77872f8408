import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

extension MenuDeckConfig {
  /// The run settings: "seed", "time_zone", "format", "drag_rule" and "stale_history_days".
  package mutating func readSettings(_ root: JSONValue) throws(DeckIOError) {
    if let v = try root.optionalValue(at: "stale_history_days") {
      // (0 turns the check off: docs/config.md.)
      staleHistoryDays = try wholeNumber(v, "stale_history_days", in: Limits.ruleDays)
      staleHistoryDaysIsSet = true
    }
    if let v = try root.optionalValue(at: "seed") {
      let expected = "a whole number from 0 to \(UInt64.max)"
      guard let text = v.numberText else {
        throw v.error("'seed' is \(v.typeDescription), not a whole number; give \(expected)")
      }
      switch RangeText.whole(text, as: UInt64.self) {
      case .value(let seed): self.seed = seed
      case .outOfRange: throw v.error("'seed': " + RangeText.outOfRange(text, give: expected))
      case .notWhole:
        throw v.error("'seed': " + RangeText.not("a whole number", text, give: expected))
      }
    }
    if let v = try root.optionalValue(at: "time_zone") {
      timeZone = try v.requireString(field: "time_zone")
      guard TimeZones.zone(named: timeZone) != nil else {
        throw v.error(
          "unknown time zone '\(timeZone)'; use an IANA name such as 'Asia/Tokyo' or 'UTC'")
      }
    }
    if let v = try root.optionalValue(at: "format") {
      let text = try v.requireString(field: "format")
      guard let format = DeckFormat(rawValue: text) else {
        throw v.error(
          "unknown format '\(text)'"
            + didYouMean(text, DeckFormat.allCases.map(\.rawValue)) + "; use one of "
            + DeckFormat.allCases.map(\.rawValue).joined(separator: ", "))
      }
      self.format = format
    }
    if let v = try root.optionalValue(at: "drag_rule") {
      let text = try v.requireString(field: "drag_rule")
      switch text {
      case "relative": dragRule = .foodMenu
      case "absolute": dragRule = .cardDeck
      default:
        throw v.error(
          "unknown drag rule '\(text)'; use 'relative' (food-menu app: |dx|/width > 0.45) or "
            + "'absolute' (card-deck app: |dx| > 100 points)")
      }
    }
  }
}
