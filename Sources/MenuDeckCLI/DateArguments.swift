import DeckCommandLine
import DeckCore
import DeckJobs
import Foundation

/// A date on the command line (`--date`, `ingest --before`, `simulate --start`, `compare
/// --start` and `--split`): `YYYY-MM-DD`, or a day counted from today in the config's time zone
/// (`today`, `tomorrow`, `yesterday`, `+N`, `-N`). A crontab gives the words as they are,
/// whatever the server's own zone: a UTC server cannot easily compute Tokyo's tomorrow with
/// `date`.
enum DateArgument {
  /// The most days `+N` and `-N` count from today: 100 years, as the deck rules' day windows.
  static let maxOffset = Limits.ruleDays.upperBound

  /// The help's words for the forms a date option takes, after "YYYY-MM-DD".
  static let forms =
    "YYYY-MM-DD, or today, tomorrow, yesterday, +N or -N days from today, in the config's time "
    + "zone"

  /// The date `text` names for `option`, the relative forms counted from `today`; a usage
  /// error (exit 64) that names the option and the forms otherwise.
  static func parse(_ text: String, option: String, today: DeckDate) throws -> DeckDate {
    if let date = DeckDate.parse(text) { return date }
    let offset: Int
    switch text {
    case "today": offset = 0
    case "tomorrow": offset = 1
    case "yesterday": offset = -1
    default:
      guard let n = signedDays(text) else {
        if text.hasPrefix("--"), let n = signedDays(String(text.dropFirst())) {
          // A doubled sign: what was meant is -N.
          throw UsageError(
            "'\(option) \(text)': '\(text)' is not a date; give '\(option) -\(-n)' (one minus "
              + "sign: \(plural(-n, "day")) before today), or YYYY-MM-DD, today, tomorrow, "
              + "yesterday, +N or -N")
        }
        throw UsageError(
          "invalid date '\(text)' for '\(option)'; expected YYYY-MM-DD, e.g. 2026-11-30, or "
            + "today, tomorrow, yesterday, +N or -N (days from today in the config's time zone)")
      }
      guard n.magnitude <= maxOffset else {
        throw UsageError(
          "'\(option) \(text)' counts more than \(maxOffset) days from today; give at most "
            + "+\(maxOffset) or -\(maxOffset), or a date YYYY-MM-DD")
      }
      offset = n
    }
    let day = Int(today.daysSinceEpoch) + offset
    guard
      (Int(DeckDate.supportedDays.lowerBound)...Int(DeckDate.supportedDays.upperBound))
        .contains(day)
    else {
      throw UsageError(
        "'\(option) \(text)' is outside 0001-01-01 to 9999-12-31; give a date YYYY-MM-DD")
    }
    return DeckDate(daysSinceEpoch: Int32(day))
  }

  /// `+N` or `-N`: a sign, then 1 to 6 ASCII digits (more cannot be within `maxOffset`, and
  /// are reported as over it).
  private static func signedDays(_ text: String) -> Int? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 2, bytes[0] == UInt8(ascii: "+") || bytes[0] == UInt8(ascii: "-"),
      bytes.dropFirst().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
    else { return nil }
    let digits = bytes.dropFirst()
    // Too many digits for any offset within the limit: one past it, so the message says so.
    let magnitude =
      digits.count > 6 ? maxOffset + 1 : Int(String(decoding: digits, as: UTF8.self))!
    return bytes[0] == UInt8(ascii: "-") ? -magnitude : magnitude
  }
}
