import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

extension MenuDeckConfig {
  /// The run settings: "seed", "time_zone", "format", "drag_rule" and "stale_history_days".
  mutating func readSettings(_ root: JSONValue) throws(DeckIOError) {
    if let v = try root.optionalValue(at: "stale_history_days") {
      let range = Limits.ruleDays
      guard let text = v.numberText, let n = Int(text) ?? beyondInt(text), n >= range.lowerBound
      else {
        throw v.error(
          "'stale_history_days' must be a whole number of days, \(range.lowerBound) (no check) "
            + "or more")
      }
      guard n <= range.upperBound else {
        throw v.error(
          "'stale_history_days' is \(text), more than the limit \(range.upperBound); give a "
            + "whole number from \(range.lowerBound) to \(range.upperBound)")
      }
      staleHistoryDays = n
    }
    if let v = try root.optionalValue(at: "seed") {
      guard let text = v.numberText, let seed = UInt64(text) else {
        throw v.error("'seed' must be a whole number from 0 to 18446744073709551615")
      }
      self.seed = seed
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
