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
///
/// Or a distribution over whole decks, JSON Lines (a file whose first non-blank byte is `{`),
/// one deck per line, the same groups:
///
///     {"diner":"u07","day":"2026-11-20","deck":["nikujaga","ramen","udon"],"probability":0.42}
///     {"deck":["ramen"],"probability":0.1}    no diner, no day: every diner on every day
///
/// - `deck` (an array of distinct catalog ids, in position order, at most `maxPosition`) and
///   `probability` are required; `diner` and `day` may be left out or null.
/// - In a group each deck appears once and the probabilities sum to at most 1 (within 1e-9);
///   the rest is the probability of showing no deck. A deck the group does not list has
///   probability 0.
/// - From the decks, exactly: π(item, position) (the sum over the decks with the dish there,
///   kept in `groups` as for the CSV form), and, for the slate estimators, the probability of
///   any prefix of cards and the distribution of the next card given one (`decks`).
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

  /// A deck of a deck-distribution file: its dishes in position order, and its probability.
  package struct Deck: Sendable, Equatable {
    package var items: [Int32]
    package var probability: Double
  }

  package var file: String
  /// The groups, in the order of their first row.
  package var keys: [Key]
  package var groups: [Key: [Entry]]
  /// Rows read.
  package var rows: Int
  /// For a deck-distribution file, each group's decks sorted by their items (lexicographically,
  /// a deck before the longer ones it begins): the decks that begin with any prefix are
  /// consecutive. Empty for a file of per-position probabilities.
  package var decks: [Key: [Deck]] = [:]

  /// Whether the file gives whole decks (so the probability of any prefix is known).
  package var isDeckDistribution: Bool { !decks.isEmpty }

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

  /// Reads a policy file's bytes against `catalog`: JSON Lines of decks when the first
  /// non-blank byte is `{`, else CSV of per-position probabilities, its fields separated by
  /// `delimiter`.
  package static func parse(
    _ bytes: [UInt8], file: String, catalog: Catalog, delimiter: CSVDelimiter = .comma
  ) throws(DeckIOError) -> PolicyFile {
    if let first = bytes.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }),
      first == UInt8(ascii: "{")
    {
      return try parseDecks(bytes, file: file, catalog: catalog)
    }
    let table = try CSVParser.parse(bytes, file: file, delimiter: delimiter)
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

  /// The JSON Lines form (see the type).
  static func parseDecks(_ bytes: [UInt8], file: String, catalog: Catalog)
    throws(DeckIOError) -> PolicyFile
  {
    var policy = PolicyFile(file: file, keys: [], groups: [:], rows: 0)
    var totals: [Key: Double] = [:]
    var seen: [Key: Set<[Int32]>] = [:]
    var marginals: [Key: [UInt64: Double]] = [:]
    var number = 0
    var start = 0
    while start < bytes.count {
      number += 1
      var end = start
      while end < bytes.count && bytes[end] != 0x0A { end += 1 }
      // A CRLF line end is a line end; any other carriage return is refused by the record
      // dialect (CR-only line ends would make the file one line).
      let crlf = end < bytes.count && end > start && bytes[end - 1] == 0x0D
      let line = Array(bytes[start..<(crlf ? end - 1 : end)])
      start = end + 1
      guard line.contains(where: { !($0 == 0x20 || $0 == 0x09) }) else { continue }
      let fail = DeckLineFailure(file: file, line: number)
      let (value, object) = try deckObject(line, fail)
      let key = try deckKey(object, fail)
      let (deckValue, items) = try deckItems(value, object, catalog: catalog, fail)
      let (p, probability) = try deckProbability(value, object, fail)
      if totals[key] == nil { policy.keys.append(key) }
      guard seen[key, default: []].insert(items).inserted else {
        throw fail(
          deckValue, "deck",
          "this deck is given twice for \(describe(key)); give each deck once per group")
      }
      let total = totals[key, default: 0] + probability
      guard total <= 1 + sumTolerance else {
        throw fail(
          p, "probability",
          "the decks' probabilities for \(describe(key)) sum to \(total), above 1; a session"
            + " shows one deck, so they sum to at most 1")
      }
      totals[key] = total
      policy.rows += 1
      policy.decks[key, default: []].append(Deck(items: items, probability: probability))
      for (k, item) in items.enumerated() {
        marginals[key, default: [:]][
          UInt64(UInt32(bitPattern: item)) << 32 | UInt64(k + 1), default: 0] += probability
      }
    }
    guard policy.rows > 0 else {
      throw .invalid(path: file, message: "no decks; the policy needs at least one line")
    }
    for key in policy.keys {
      policy.decks[key]!.sort { $0.items.lexicographicallyPrecedes($1.items) }
      policy.groups[key] = marginals[key]!.sorted { $0.key < $1.key }.map { pair, probability in
        Entry(
          item: Int32(bitPattern: UInt32(pair >> 32)), position: Int32(pair & 0xFFFF_FFFF),
          probability: min(probability, 1))
      }
    }
    return policy
  }

  /// A failure in line `line` of a JSON Lines policy, at a value (its column) and a field.
  private struct DeckLineFailure {
    var file: String
    var line: Int

    func callAsFunction(_ at: JSONValue?, _ field: String, _ message: String) -> DeckIOError {
      .malformed(
        SourceLocation(file: file, line: line, column: at?.column, field: field), message: message)
    }
  }

  private static let deckFields = ["diner", "day", "deck", "probability"]

  /// A JSON Lines policy line as an object of known fields.
  private static func deckObject(_ line: [UInt8], _ fail: DeckLineFailure)
    throws(DeckIOError) -> (JSONValue, JSONObject)
  {
    let value: JSONValue
    do {
      value = try JSONParser.parseRecord(line, file: fail.file)
    } catch {
      guard case .malformed(var location, let message) = error else { throw error }
      location.line = fail.line
      throw .malformed(location, message: message)
    }
    guard let object = value.objectValue else {
      throw fail(
        value, "deck",
        "a line is \(value.typeDescription); expected an object such as {\"deck\":[\"ramen\"],"
          + "\"probability\":0.5}")
    }
    for key in object.keys where !deckFields.contains(key) {
      let near = closestMatch(key, deckFields)
      throw fail(
        object[key], key,
        "unknown field '\(key)'\(near.map { " (did you mean '\($0)'?)" } ?? ""); a line has"
          + " deck, probability and optionally diner and day")
    }
    return (value, object)
  }

  /// The group a line's deck is in: its diner and day, each nil (every one) when absent, null
  /// or empty.
  private static func deckKey(_ object: JSONObject, _ fail: DeckLineFailure)
    throws(DeckIOError) -> Key
  {
    var diner: String?
    if let d = object["diner"], !d.isNull {
      guard let text = d.stringValue else {
        throw fail(d, "diner", "the diner is \(d.typeDescription); expected a string id")
      }
      diner = text.isEmpty ? nil : text
    }
    var day: DeckDate?
    if let d = object["day"], !d.isNull {
      guard let text = d.stringValue, text.isEmpty || DeckDate.parse(text) != nil else {
        throw fail(
          d, "day",
          "\(d.stringValue.map { "'\($0)'" } ?? d.typeDescription) is not a date;"
            + " expected \"YYYY-MM-DD\" or null (every day)")
      }
      day = text.isEmpty ? nil : DeckDate.parse(text)
    }
    return Key(diner: diner, day: day)
  }

  /// A line's deck: its value and its dishes, catalog dishes each once.
  private static func deckItems(
    _ value: JSONValue, _ object: JSONObject, catalog: Catalog, _ fail: DeckLineFailure
  ) throws(DeckIOError) -> (JSONValue, [Int32]) {
    guard let deckValue = object["deck"] else {
      throw fail(value, "deck", "no deck; give the deck's dishes as an array of ids")
    }
    guard let elements = deckValue.arrayValue else {
      throw fail(
        deckValue, "deck", "the deck is \(deckValue.typeDescription); expected an array of ids")
    }
    guard elements.count <= maxPosition else {
      throw fail(
        deckValue, "deck",
        "a deck of \(elements.count) dishes; a deck holds at most \(maxPosition)")
    }
    var items: [Int32] = []
    items.reserveCapacity(elements.count)
    for element in elements {
      guard let id = element.stringValue else {
        throw fail(element, "deck", "a dish is \(element.typeDescription); expected a string id")
      }
      guard let item = catalog.index(of: id) else {
        let near = closestMatch(id, catalog.items.map(\.id)).map { " (did you mean '\($0)'?)" }
        throw fail(
          element, "deck",
          "'\(id)' is not a dish of the catalog\(near ?? ""); a policy can only show catalog"
            + " dishes")
      }
      guard !items.contains(item) else {
        throw fail(element, "deck", "'\(id)' is twice in the deck; a deck shows a dish once")
      }
      items.append(item)
    }
    return (deckValue, items)
  }

  /// A line's probability: its value and a number from 0 to 1.
  private static func deckProbability(
    _ value: JSONValue, _ object: JSONObject, _ fail: DeckLineFailure
  ) throws(DeckIOError) -> (JSONValue, Double) {
    guard let p = object["probability"] else {
      throw fail(value, "probability", "no probability; give the deck's probability")
    }
    guard let probability = p.doubleValue, probability.isFinite, probability >= 0,
      probability <= 1
    else {
      throw fail(
        p, "probability",
        "\(p.numberText.map { "'\($0)'" } ?? p.typeDescription) is not a probability;"
          + " expected a number from 0 to 1")
    }
    return (p, probability)
  }

  /// "every diner on every day", "diner u07 on 2026-11-20", ...
  package static func describe(_ key: Key) -> String {
    let diner = key.diner.map { "diner \(String(decoding: $0, as: UTF8.self))" } ?? "every diner"
    let day = key.day.map { "on \(DeckDate(daysSinceEpoch: $0))" } ?? "on every day"
    return "\(diner) \(day)"
  }
}
