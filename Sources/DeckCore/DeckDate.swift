/// A calendar date (no time, no zone), stored as days since 1970-01-01.
///
/// Conversions use the proleptic Gregorian calendar with integer arithmetic only, so they are
/// identical on every platform and need no time-zone database.
public struct DeckDate: Sendable, Hashable, Comparable, CustomStringConvertible {
  /// Days since 1970-01-01 (negative before it).
  public var daysSinceEpoch: Int32

  public init(daysSinceEpoch: Int32) {
    self.daysSinceEpoch = daysSinceEpoch
  }

  /// The days menudeck reads and writes: 0001-01-01 (-719162) to 9999-12-31 (2932896), the
  /// years of `YYYY-MM-DD` and of every timestamp the readers accept. A day outside them in a
  /// history snapshot means the file is corrupt.
  public static let supportedDays: ClosedRange<Int32> = -719_162...2_932_896

  /// A date from its components, or nil when they do not name a real day (e.g. 2026-02-30).
  public init?(year: Int, month: Int, day: Int) {
    guard (1...12).contains(month), day >= 1, day <= DeckDate.daysInMonth(year: year, month: month),
      (1...9999).contains(year)
    else { return nil }
    self.daysSinceEpoch = Int32(DeckDate.daysFromCivil(year: year, month: month, day: day))
  }

  /// Parses exactly `YYYY-MM-DD`.
  public static func parse<S: StringProtocol>(_ text: S) -> DeckDate? {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBufferPointer { parse(bytes: $0) }
  }

  /// Parses exactly `YYYY-MM-DD` from UTF-8 bytes.
  public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> DeckDate? {
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else {
      return nil
    }
    guard let y = digits(bytes, 0, 4), let m = digits(bytes, 5, 2), let d = digits(bytes, 8, 2)
    else { return nil }
    return DeckDate(year: y, month: m, day: d)
  }

  public var components: (year: Int, month: Int, day: Int) {
    DeckDate.civilFromDays(Int(daysSinceEpoch))
  }

  public var weekday: Weekday {
    // 1970-01-01 was a Thursday (ISO weekday 4).
    let mod = ((Int(daysSinceEpoch) % 7) + 7) % 7
    return Weekday(rawValue: (mod + 3) % 7 + 1)!
  }

  public func adding(days: Int) -> DeckDate {
    DeckDate(daysSinceEpoch: daysSinceEpoch + Int32(days))
  }

  /// Whole days from `other` to `self` (positive when `self` is later).
  public func days(since other: DeckDate) -> Int {
    Int(daysSinceEpoch) - Int(other.daysSinceEpoch)
  }

  public var description: String {
    let (y, m, d) = components
    return pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
  }

  public static func < (a: DeckDate, b: DeckDate) -> Bool { a.daysSinceEpoch < b.daysSinceEpoch }

  // MARK: - Calendar arithmetic (Howard Hinnant's days_from_civil / civil_from_days algorithms)

  static func isLeap(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

  static func daysInMonth(year: Int, month: Int) -> Int {
    switch month {
    case 2: return isLeap(year) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }

  static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yoe = y - era * 400
    let mp = (month + 9) % 12
    let doy = (153 * mp + 2) / 5 + day - 1
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
    return era * 146097 + doe - 719468
  }

  static func civilFromDays(_ z0: Int) -> (year: Int, month: Int, day: Int) {
    let z = z0 + 719468
    let era = (z >= 0 ? z : z - 146096) / 146097
    let doe = z - era * 146097
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
    let mp = (5 * doy + 2) / 153
    let d = doy - (153 * mp + 2) / 5 + 1
    let m = mp < 10 ? mp + 3 : mp - 9
    return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
  }

  private static func digits(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ count: Int) -> Int? {
    var value = 0
    for i in start..<(start + count) {
      let c = b[i] &- UInt8(ascii: "0")
      guard c < 10 else { return nil }
      value = value * 10 + Int(c)
    }
    return value
  }
}

private func pad(_ value: Int, _ width: Int) -> String {
  let s = String(value)
  return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
}

/// ISO 8601 weekday: Monday = 1 ... Sunday = 7.
public enum Weekday: Int, Sendable, CaseIterable, Comparable, CustomStringConvertible {
  case monday = 1
  case tuesday, wednesday, thursday, friday, saturday, sunday

  /// Accepts the full English name or its three-letter abbreviation, in any case.
  public init?(name: String) {
    let lower = name.lowercased()
    guard let match = Weekday.allCases.first(where: { $0.name == lower || $0.short == lower })
    else { return nil }
    self = match
  }

  public var name: String {
    ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"][rawValue - 1]
  }
  public var short: String { String(name.prefix(3)) }
  public var description: String { short }
  public static func < (a: Weekday, b: Weekday) -> Bool { a.rawValue < b.rawValue }
}
