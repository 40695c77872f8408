import DeckBase
import DeckCore

/// A target policy's action probabilities read from a file: π(item, position | diner, day), the
/// probability that the policy puts the dish at the position of the diner's deck that day (Open
/// Bandit Pipeline's `action_dist`), so that a policy computed elsewhere can be evaluated
/// off-policy.
///
/// CSV, a header row naming the columns in any order:
///
///     diner,day,item,position,probability
///     u07,2026-11-20,nikujaga,1,0.42
///     ,,nikujaga,1,0.0125          an empty diner: every diner; an empty day: every day
///
/// - `item` (a catalog id), `position` (1-based, 1 to `maxPosition`) and `probability` (a
///   number in [0, 1]) are required; the `diner` and `day` (YYYY-MM-DD) columns may be left
///   out, which is the same as leaving them empty on every row.
/// - The rows with the same (diner, day) form one *group*: the policy's distribution for the
///   sessions it covers. A session (diner, day) takes the most specific group there is:
///   (diner, day), else (diner, every day), else (every diner, day), else (every diner, every
///   day). Groups do not add up.
/// - Within a group, a dish appears at most once per position, and a position's probabilities
///   sum to at most 1 (within 1e-9); what is left is the probability of showing nothing there
///   (reward 0). A dish or position the group does not list has probability 0.
/// - Ids are compared by their UTF-8 bytes, as everywhere in menudeck.
///
/// Every mistake stops the read with its file, line and column (exit 65): an unknown dish (with
/// a did-you-mean), a position or probability out of range, a malformed day, a repeated (dish,
/// position) in a group, a position whose probabilities sum above 1.
package struct PolicyFile: Sendable, Equatable {
  /// The sessions a group covers: nil is "every".
  package struct Key: Hashable, Sendable {
    package var diner: [UInt8]?
    package var day: Int32?

    package init(diner: String?, day: DeckDate?) {
      self.diner = diner.map { Array($0.utf8) }
      self.day = day?.daysSinceEpoch
    }

    init(bytes: [UInt8]?, day: Int32?) {
      diner = bytes
      self.day = day
    }
  }

  /// One (dish, position, probability) of a group.
  package struct Entry: Sendable, Equatable {
    package var item: Int32
    package var position: Int32
    package var probability: Double
  }

  package var file: String
  /// The groups, in the order of their first row.
  package var keys: [Key]
  package var groups: [Key: [Entry]]
  /// Rows read.
  package var rows: Int

  /// The largest position a row may name (a swipe deck's longest).
  package static let maxPosition = 10_000
  /// The largest policy file read, in bytes: a CSV row takes about ten times its size in
  /// memory while it is parsed.
  package static let maxBytes = 512 << 20
  /// How far a position's probabilities may sum above 1 (rounding in the file).
  package static let sumTolerance = 1e-9

  /// The group of the session (diner, day): the most specific one, nil when none covers it.
  package func group(diner: String, day: DeckDate) -> [Entry]? {
    groupKey(diner: diner, day: day).flatMap { groups[$0] }
  }

  /// The key of the group of the session (diner, day), nil when none covers it.
  package func groupKey(diner: String, day: DeckDate) -> Key? {
    let d = Array(diner.utf8)
    let t = day.daysSinceEpoch
    for key in [
      Key(bytes: d, day: t), Key(bytes: d, day: nil), Key(bytes: nil, day: t),
      Key(bytes: nil, day: nil),
    ] {
      if groups[key] != nil { return key }
    }
    return nil
  }

  /// Reads a policy file's bytes against `catalog`.
  package static func parse(_ bytes: [UInt8], file: String, catalog: Catalog)
    throws(DeckIOError) -> PolicyFile
  {
    let table = try CSVParser.parse(bytes, file: file)
    let itemColumn = try table.requireColumn("item")
    let positionColumn = try table.requireColumn("position")
    let probabilityColumn = try table.requireColumn("probability")
    let dinerColumn = table.column("diner")
    let dayColumn = table.column("day")
    var policy = PolicyFile(file: file, keys: [], groups: [:], rows: table.records.count)
    // Per group and position, the sum so far; per group, (item, position) pairs seen.
    var sums: [Key: [Int32: Double]] = [:]
    var seen: [Key: Set<UInt64>] = [:]
    for record in table.records {
      func fail(_ column: Int, _ message: String) -> DeckIOError {
        var location = table.location(record, column)
        location.field = table.header[column]
        return .malformed(location, message: message)
      }
      var day: DeckDate?
      if let dayColumn, !record[dayColumn].isEmpty {
        guard let d = DeckDate.parse(record[dayColumn]) else {
          throw fail(
            dayColumn,
            "'\(record[dayColumn])' is not a date; expected YYYY-MM-DD or empty (every day)")
        }
        day = d
      }
      let diner = dinerColumn.flatMap { record[$0].isEmpty ? nil : record[$0] }
      let id = record[itemColumn]
      guard let item = catalog.index(of: id) else {
        let near = closestMatch(id, catalog.items.map(\.id)).map { " (did you mean '\($0)'?)" }
        throw fail(
          itemColumn,
          "'\(id)' is not a dish of the catalog\(near ?? ""); a policy can only show catalog dishes"
        )
      }
      guard let position = Int32(record[positionColumn]), position >= 1,
        position <= maxPosition
      else {
        throw fail(
          positionColumn,
          "'\(record[positionColumn])' is not a position; expected a whole number from 1 to"
            + " \(maxPosition)")
      }
      guard let probability = Double(record[probabilityColumn]), probability.isFinite,
        probability >= 0, probability <= 1
      else {
        throw fail(
          probabilityColumn,
          "'\(record[probabilityColumn])' is not a probability; expected a number from 0 to 1")
      }
      let key = Key(diner: diner, day: day)
      if policy.groups[key] == nil { policy.keys.append(key) }
      let pair = UInt64(UInt32(bitPattern: item)) << 32 | UInt64(position)
      guard seen[key, default: []].insert(pair).inserted else {
        throw fail(
          itemColumn,
          "'\(id)' at position \(position) is given twice for \(describe(key)); give each dish"
            + " once per position")
      }
      let sum = sums[key, default: [:]][position, default: 0] + probability
      guard sum <= 1 + sumTolerance else {
        throw fail(
          probabilityColumn,
          "the probabilities at position \(position) for \(describe(key)) sum to \(sum), above"
            + " 1; a position holds one dish at a time, so they sum to at most 1")
      }
      sums[key, default: [:]][position] = sum
      policy.groups[key, default: []].append(
        Entry(item: item, position: position, probability: probability))
    }
    guard policy.rows > 0 else {
      throw .invalid(
        path: file, message: "no probabilities (only a header); the policy needs at least one row")
    }
    return policy
  }

  /// "every diner on every day", "diner u07 on 2026-11-20", ...
  package static func describe(_ key: Key) -> String {
    let diner = key.diner.map { "diner \(String(decoding: $0, as: UTF8.self))" } ?? "every diner"
    let day = key.day.map { "on \(DeckDate(daysSinceEpoch: $0))" } ?? "on every day"
    return "\(diner) \(day)"
  }
}
