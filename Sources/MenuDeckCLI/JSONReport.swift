import DeckBase
import DeckIO
import DeckStrategies

/// Numbers and option values in the CLI's own JSON reports (strings go through DeckBase's
/// `JSONText`).
enum JSONReport {
  static func number(_ d: Double) -> String { Text.number(d) }

  /// A bound of an option's range in its type: whole for an int option, with a point for a
  /// double.
  static func bound(_ d: Double, of type: OptionType) -> String {
    type == .int || !d.isFinite ? number(d) : Text.roundTrip(d)
  }

  static func value(_ v: OptionValue) -> String {
    switch v {
    // A double keeps its point (`1.0`), as in the deck's run header, so that a loader types the
    // value as the option's type.
    case .double(let d): return d.isFinite ? Text.roundTrip(d) : "null"
    case .int(let i): return String(i)
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return JSONText.string(s)
    }
  }
}
