import DeckBase
import DeckCore

/// How to read a foreign CSV swipe log: which column holds each of menudeck's event fields, and,
/// for logs of ratings instead of swipes, which ratings are right and left swipes.
///
/// - A field named in `columns` is read from that column only; a column that carries the field's
///   own name is then ignored. Fields not named keep their usual column names (`user`, `item`,
///   `at`, ...), so a mapping renames only what differs.
/// - `rating` is not one of menudeck's fields: it is the column the rules compare. With rules the
///   swipe comes from the rating alone (columns named `swipe`, `dx` and `width` are ignored); a
///   rating that matches neither rule is a neutral event, counted in `EventFileStats.neutral` and
///   otherwise skipped. Without a `rating` entry the rules read a column named `rating`.
/// - With a mapping, `at` may be Unix epoch seconds (digits with an optional fraction, truncated
///   to the second, an instant converted to the configured zone) besides ISO 8601; and a log
///   without any time column is read as untimed: every event at 1970-01-01T00:00, and
///   `EventFileStats.untimed` set so that commands can refuse what needs real times.
/// - The mapping applies to CSV logs; a JSON Lines log read with a mapping is refused.
package struct ColumnMapping: Sendable, Equatable {
  /// The fields a mapping can name: menudeck's event fields and `rating`.
  package enum Field: String, Sendable, CaseIterable {
    case user, item, swipe, at, position, deck, propensity
    case prefixPropensity = "prefix_propensity"
    case dx, width, rating

    /// The event field it is, or nil for `rating`.
    var eventField: EventField? {
      switch self {
      case .user: return .user
      case .item: return .item
      case .swipe: return .swipe
      case .at: return .at
      case .position: return .position
      case .deck: return .deck
      case .propensity: return .propensity
      case .prefixPropensity: return .prefixPropensity
      case .dx: return .dx
      case .width: return .width
      case .rating: return nil
      }
    }
  }

  /// How the options that built a mapping are called, for messages ("--columns", or a config
  /// key).
  package struct Labels: Sendable, Equatable {
    package var columns: String
    package var right: String
    package var left: String

    package init(columns: String, right: String, left: String) {
      self.columns = columns
      self.right = right
      self.left = left
    }

    package static let commandLine = Labels(columns: "--columns", right: "--right", left: "--left")
  }

  /// Column name per field (exact, case-sensitive header names).
  package private(set) var columns: [Field: String]
  /// Ratings that are right swipes.
  package private(set) var right: RatingRule?
  /// Ratings that are left swipes.
  package private(set) var left: RatingRule?
  package private(set) var labels: Labels

  /// A checked mapping. Throws when the same column is named for two fields, when `swipe` or
  /// `dx` is mapped together with `rating`, when `rating` is mapped without rules or only one
  /// rule is given, and when the two rules overlap (a rating would be both right and left).
  package init(
    columns: [Field: String], right: RatingRule? = nil, left: RatingRule? = nil,
    labels: Labels = .commandLine
  ) throws(ColumnMappingError) {
    self.columns = columns
    self.right = right
    self.left = left
    self.labels = labels
    var owner: [String: Field] = [:]
    for field in Field.allCases {
      guard let column = columns[field] else { continue }
      if column.isEmpty {
        throw ColumnMappingError(
          "\(labels.columns): '\(field.rawValue)' has no column name; write \(field.rawValue)=COLUMN"
        )
      }
      if let other = owner[column] {
        throw ColumnMappingError(
          "\(labels.columns): column '\(column)' is given for both \(other.rawValue) and "
            + "\(field.rawValue); each field needs its own column")
      }
      owner[column] = field
    }
    let rules = right != nil || left != nil
    if rules {
      for field in [Field.swipe, .dx] where columns[field] != nil {
        throw ColumnMappingError(
          "\(labels.columns) maps \(field.rawValue), but \(labels.right)/\(labels.left) take the "
            + "swipe from the rating; keep one of the two ways")
      }
    } else if columns[.rating] != nil {
      throw ColumnMappingError(
        "\(labels.columns) maps rating, but no rule says which ratings are swipes; add e.g. "
          + "\(labels.right) 'rating>=4' \(labels.left) 'rating<=2'")
    }
    if rules {
      guard let right else {
        throw ColumnMappingError(
          "\(labels.left) needs \(labels.right) too (e.g. \(labels.right) 'rating>=4'); a log "
            + "with left swipes only has nothing to learn likes from")
      }
      guard let left else {
        throw ColumnMappingError(
          "\(labels.right) needs \(labels.left) too (e.g. \(labels.left) 'rating<=2'); "
            + "ratings matching neither are neutral")
      }
      if let both = right.overlap(with: left) {
        throw ColumnMappingError(
          "\(labels.right) '\(right)' and \(labels.left) '\(left)' overlap: a rating of "
            + "\(RatingRule.format(both)) would be both a right and a left swipe; make the rules "
            + "disjoint")
      }
    }
  }

  /// Parses `field=column,field=column,...` (spaces around names are trimmed; a column name may
  /// not contain a comma). `label` names the option in messages.
  package static func parseColumns(_ spec: String, label: String = "--columns")
    throws(ColumnMappingError) -> [Field: String]
  {
    var columns: [Field: String] = [:]
    let valid = Field.allCases.map(\.rawValue)
    let entries = spec.split(separator: ",", omittingEmptySubsequences: false)
    for raw in entries {
      let entry = raw.trimmingSpaces
      guard let eq = entry.firstIndex(of: "=") else {
        if entry.isEmpty {
          throw ColumnMappingError(
            "\(label): empty entry in '\(spec)'; write field=column pairs separated by commas, "
              + "e.g. user=userId,item=movieId")
        }
        throw ColumnMappingError(
          "\(label): '\(entry)' is not field=column; write e.g. user=userId,item=movieId")
      }
      let name = String(entry[..<eq].trimmingSpaces)
      let column = String(entry[entry.index(after: eq)...].trimmingSpaces)
      guard let field = Field(rawValue: name) else {
        throw ColumnMappingError(
          "\(label): unknown field '\(name)'\(didYouMean(name, valid)); fields: "
            + valid.joined(separator: ", "))
      }
      if columns[field] != nil {
        throw ColumnMappingError("\(label): '\(name)' is given twice; keep one")
      }
      if column.isEmpty {
        throw ColumnMappingError("\(label): '\(name)' has no column name; write \(name)=COLUMN")
      }
      columns[field] = column
    }
    return columns
  }

  /// The mapping as `--columns` text, fields in a fixed order.
  package var columnsSpec: String {
    Field.allCases.compactMap { f in columns[f].map { "\(f.rawValue)=\($0)" } }.joined(
      separator: ",")
  }

  /// Whether the swipe comes from rating rules.
  package var hasRules: Bool { right != nil }

  /// The message for a JSON Lines log read with a mapping.
  static func jsonLinesRefusal(_ labels: Labels) -> String {
    "\(labels.columns) applies to CSV logs; this log is JSON Lines, whose keys must be menudeck's "
      + "(user, item, swipe, at, ...): rename them, or convert the log to CSV"
  }
}

/// A bad column mapping or rating rule; the message names the option and what is valid.
package struct ColumnMappingError: Error, Sendable, Equatable, CustomStringConvertible {
  package var message: String

  package init(_ message: String) {
    self.message = message
  }

  package var description: String { message }
}

/// `rating>=4`: which ratings make a swipe. The left-hand side is `rating` (it may be left out:
/// `>=4`); operators `>=`, `>`, `<=`, `<`, `=`; the threshold is a decimal number.
package struct RatingRule: Sendable, Equatable, CustomStringConvertible {
  package enum Comparison: String, Sendable, CaseIterable {
    case atLeast = ">="
    case above = ">"
    case atMost = "<="
    case below = "<"
    case equal = "="
  }

  package var comparison: Comparison
  package var threshold: Double

  package init(_ comparison: Comparison, _ threshold: Double) {
    self.comparison = comparison
    self.threshold = threshold
  }

  /// Parses a rule; `label` names the option in messages.
  package static func parse(_ text: String, label: String) throws(ColumnMappingError) -> RatingRule
  {
    var rest = Substring(text).trimmingSpaces
    if rest.hasPrefix("rating") {
      rest = rest.dropFirst("rating".count).trimmingSpaces
    } else if let first = rest.first, first.isLetter || first == "_" {
      let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
      throw ColumnMappingError(
        "\(label): rules compare the rating; '\(text)' names '\(name)' (map that column with "
          + "--columns rating=\(name) and write rating\(rest.dropFirst(name.count).trimmingSpaces))"
      )
    }
    // Longest operator first, so that ">=" is not read as ">".
    let ordered: [Comparison] = [.atLeast, .atMost, .above, .below, .equal]
    guard let comparison = ordered.first(where: { rest.hasPrefix($0.rawValue) }) else {
      throw ColumnMappingError(
        "\(label): '\(text)' is not a rule; write e.g. 'rating>=4' (operators >=, >, <=, <, =)")
    }
    let number = rest.dropFirst(comparison.rawValue.count).trimmingSpaces
    let bytes = Array(number.utf8)
    let value = bytes.withUnsafeBufferPointer { b -> Double? in
      guard let base = b.baseAddress, !b.isEmpty else { return nil }
      return parseNumber(base, b.count)
    }
    guard let value, value.isFinite else {
      throw ColumnMappingError(
        "\(label): '\(number)' in '\(text)' is not a number; write e.g. 'rating>=4' or "
          + "'rating<=2.5'")
    }
    return RatingRule(comparison, value)
  }

  @inline(__always)
  package func matches(_ rating: Double) -> Bool {
    switch comparison {
    case .atLeast: return rating >= threshold
    case .above: return rating > threshold
    case .atMost: return rating <= threshold
    case .below: return rating < threshold
    case .equal: return rating == threshold
    }
  }

  /// A rating both rules match, or nil when they are disjoint.
  package func overlap(with other: RatingRule) -> Double? {
    let a = interval
    let b = other.interval
    // The intersection: the larger lower end, the smaller upper end.
    let lo: (Double, Bool)
    if a.lo.0 != b.lo.0 {
      lo = a.lo.0 > b.lo.0 ? a.lo : b.lo
    } else {
      lo = (a.lo.0, a.lo.1 && b.lo.1)
    }
    let hi: (Double, Bool)
    if a.hi.0 != b.hi.0 {
      hi = a.hi.0 < b.hi.0 ? a.hi : b.hi
    } else {
      hi = (a.hi.0, a.hi.1 && b.hi.1)
    }
    if lo.0 > hi.0 { return nil }
    if lo.0 == hi.0 { return lo.1 && hi.1 ? lo.0 : nil }
    if lo.1 && lo.0.isFinite { return lo.0 }
    if hi.1 && hi.0.isFinite { return hi.0 }
    if lo.0.isFinite && hi.0.isFinite { return (lo.0 + hi.0) / 2 }
    if lo.0.isFinite { return lo.0 + 1 }
    if hi.0.isFinite { return hi.0 - 1 }
    return 0
  }

  /// The ratings it matches: lower and upper end, each with whether it is included.
  private var interval: (lo: (Double, Bool), hi: (Double, Bool)) {
    switch comparison {
    case .atLeast: return ((threshold, true), (.infinity, false))
    case .above: return ((threshold, false), (.infinity, false))
    case .atMost: return ((-.infinity, false), (threshold, true))
    case .below: return ((-.infinity, false), (threshold, false))
    case .equal: return ((threshold, true), (threshold, true))
    }
  }

  /// `rating>=4`.
  package var description: String { "rating" + comparison.rawValue + RatingRule.format(threshold) }

  /// A number as an integer when whole (`4`), otherwise the shortest round-trip form (`2.5`).
  static func format(_ value: Double) -> String { Text.number(value) }
}

extension Substring {
  fileprivate var trimmingSpaces: Substring {
    var s = self
    while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
    while let l = s.last, l == " " || l == "\t" { s.removeLast() }
    return s
  }
}

// MARK: - The header of a mapped log

/// What each header column of a mapped log holds.
struct MappedHeader {
  /// Per column: an `EventField` raw value, `CSVFieldList.ratingColumn` or
  /// `CSVFieldList.ignoredColumn`.
  var kinds: [UInt8]
  /// No column holds `at`: every event gets time 0.
  var untimed: Bool
}

extension ColumnMapping {
  /// Assigns the header's columns (`names`, in order) to fields; `offsets` are where each name
  /// starts in the record (for the location of a duplicate). Throws a fatal failure at line 1
  /// for a mapped column that is missing, a column given twice, or a header that lacks what
  /// every event needs.
  func header(_ names: [String], offsets: [Int]) throws(LineFailure) -> MappedHeader {
    var byColumn: [String: Field] = [:]
    for (field, column) in columns { byColumn[column] = field }
    var kinds: [UInt8] = []
    var found: Set<Field> = []
    for (c, name) in names.enumerated() {
      var field = byColumn[name]
      if field == nil, let native = Field(rawValue: name), columns[native] == nil {
        // A column with a field's own name, when the mapping does not name the field.
        if native == .rating {
          field = hasRules ? .rating : nil
        } else if hasRules && (native == .swipe || native == .dx || native == .width) {
          field = nil  // the swipe comes from the rating
        } else {
          field = native
        }
      }
      guard let field else {
        kinds.append(CSVFieldList.ignoredColumn)
        continue
      }
      if !found.insert(field).inserted {
        var failure = LineFailure(
          offsets[c], field.eventField,
          "the header has the column '\(name)' twice; keep one")
        failure.fatal = true
        throw failure
      }
      kinds.append(field.eventField?.rawValue ?? CSVFieldList.ratingColumn)
    }
    let listed = names.map { "'\($0)'" }.joined(separator: ", ")
    func missing(_ message: String) -> LineFailure {
      var failure = LineFailure(0, nil, message)
      failure.fatal = true
      return failure
    }
    for field in Field.allCases {
      guard let column = columns[field], !found.contains(field) else { continue }
      let near = closestMatch(column, names).map { " (did you mean '\($0)'?)" } ?? ""
      throw missing(
        "the header has no column '\(column)' (\(labels.columns) \(field.rawValue)=\(column))"
          + "\(near); the header has: \(listed)")
    }
    for field in [Field.user, .item] where !found.contains(field) {
      throw missing(
        "the header has no '\(field.rawValue)' column; name its column with \(labels.columns) "
          + "\(field.rawValue)=COLUMN (the header has: \(listed))")
    }
    if hasRules && !found.contains(.rating) {
      throw missing(
        "the header has no 'rating' column for \(labels.right)/\(labels.left); name it with "
          + "\(labels.columns) rating=COLUMN (the header has: \(listed))")
    }
    if !hasRules && !found.contains(.swipe) && !found.contains(.dx) {
      throw missing(
        "the header has no 'swipe' or 'dx' column; map one with \(labels.columns), or map "
          + "rating=COLUMN with \(labels.right)/\(labels.left) rules (the header has: \(listed))")
    }
    return MappedHeader(kinds: kinds, untimed: !found.contains(.at))
  }
}
