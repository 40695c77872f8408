import DeckBase
import DeckIO
import DeckStrategies

/// Option values in the CLI's own JSON reports, written through DeckBase's `JSONWriter`.
package enum JSONReport {
  /// A bound of an option's range in its type: whole for an int option, with a point for a
  /// double.
  package static func bound(_ d: Double, of type: OptionType, to w: inout JSONWriter) {
    if type == .int || !d.isFinite { w.number(d) } else { w.roundTrip(d) }
  }

  package static func value(_ v: OptionValue, to w: inout JSONWriter) {
    switch v {
    // A double keeps its point (`1.0`), as in the deck's run header, so that a loader types the
    // value as the option's type.
    case .double(let d): w.roundTrip(d)
    case .int(let i): w.int(i)
    case .bool(let b): w.bool(b)
    case .string(let s): w.string(s)
    }
  }
}
