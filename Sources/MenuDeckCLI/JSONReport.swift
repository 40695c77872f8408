import DeckBase
import DeckIO
import DeckStrategies

/// Numbers and option values in the CLI's own JSON reports (strings go through DeckBase's
/// `JSONText`).
enum JSONReport {
  static func number(_ d: Double) -> String { JSONText.number(d) }

  static func value(_ v: OptionValue) -> String {
    switch v {
    case .double(let d): return number(d)
    case .int(let i): return String(i)
    case .bool(let b): return b ? "true" : "false"
    case .string(let s): return JSONText.string(s)
    }
  }
}
