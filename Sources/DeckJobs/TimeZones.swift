import DeckCore
import Foundation

/// Time-zone look-ups for the CLI (DeckCore itself knows no time zones).
package enum TimeZones {
  /// An IANA zone name, "UTC", or a fixed offset written "+09:00" / "-05:30".
  package static func zone(named name: String) -> TimeZone? {
    if let offset = fixedOffset(name) { return TimeZone(secondsFromGMT: offset) }
    if name == "UTC" || name == "Z" { return TimeZone(identifier: "UTC") }
    guard name.contains("/") else { return nil }
    return TimeZone(identifier: name)
  }

  package static func fixedOffset(_ text: String) -> Int? {
    let b = Array(text.utf8)
    guard b.count == 6, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"),
      b[3] == UInt8(ascii: ":"),
      let h = Int(String(decoding: b[1...2], as: UTF8.self)),
      let m = Int(String(decoding: b[4...5], as: UTF8.self)), h <= 18, m < 60
    else { return nil }
    let seconds = h * 3600 + m * 60
    return b[0] == UInt8(ascii: "-") ? -seconds : seconds
  }

  /// Today's date in `zone`.
  package static func today(in zone: TimeZone, now: Date = Date()) -> DeckDate {
    let seconds =
      Int64(now.timeIntervalSince1970.rounded(.down)) + Int64(zone.secondsFromGMT(for: now))
    return DeckDate(daysSinceEpoch: Int32(localDay(seconds: seconds)))
  }
}
