import DeckBase
import DeckCore

/// Output formats of decks.
package enum DeckFormat: String, Sendable, CaseIterable {
  /// One JSON document: a run header and an array of decks, one deck per line.
  case json
  /// JSON Lines: one deck object per line, no header.
  case jsonl
  /// CSV: one row per card, with a header row.
  case csv
  /// Aligned text for people.
  case table
}

/// What a run was made from, written at the top of JSON output so that a cron run can be audited.
package struct RunHeader: Sendable, Equatable {
  package var version: String
  package var date: DeckDate
  package var strategy: String
  /// The strategy's options (defaults included), each value already written as JSON text by
  /// the caller, which knows the option types.
  package var options: [(name: String, json: String)]
  /// What the strategy fitted from the history (`RankingStrategy.fitted`), each value already
  /// JSON text; empty when it fitted nothing.
  package var fitted: [(name: String, json: String)] = []
  package var seed: UInt64
  package var size: Int
  /// Content hashes (hex SHA-256) of the inputs, by role: config, catalog, users, history (a
  /// swipe log), snapshot (a history snapshot); in the order they were read.
  package var inputs: [RunInput]
  /// The command line exactly as given, the program name first (empty: not written).
  package var arguments: [String] = []

  package init(
    version: String, date: DeckDate, strategy: String, options: [(name: String, json: String)],
    seed: UInt64,
    size: Int, inputs: [RunInput]
  ) {
    self.version = version
    self.date = date
    self.strategy = strategy
    self.options = options
    self.seed = seed
    self.size = size
    self.inputs = inputs
  }

  /// Writes the header as the next value of `w`: `{"version","command":"deck",["arguments"],
  /// "date","strategy","options":{..},"fitted":{..},"seed","size","inputs":[..]}`.
  package func write(to w: inout JSONWriter) {
    w.beginObject()
    w.field("version", version)
    w.field("command", "deck")
    if !arguments.isEmpty {
      w.key("arguments")
      w.strings(arguments)
    }
    w.field("date", date.description)
    w.field("strategy", strategy)
    // Option and fitted values were written by a JSONWriter of the CLI, which knows their types.
    for (name, values) in [("options", options), ("fitted", fitted)] {
      w.key(name)
      w.beginObject()
      for (k, v) in values {
        w.key(k)
        w.fragment(v)
      }
      w.endObject()
    }
    w.field("seed", int: seed)
    w.field("size", int: size)
    w.key("inputs")
    RunInput.write(inputs, to: &w)
    w.endObject()
  }

  package static func == (a: RunHeader, b: RunHeader) -> Bool {
    a.version == b.version && a.date == b.date && a.strategy == b.strategy
      && a.options.elementsEqual(b.options, by: { $0.0 == $1.0 && $0.1 == $1.1 })
      && a.fitted.elementsEqual(b.fitted, by: { $0.0 == $1.0 && $0.1 == $1.1 })
      && a.seed == b.seed && a.size == b.size
      && a.inputs == b.inputs && a.arguments == b.arguments
  }
}

/// Streams decks in one format to an output, one deck at a time (constant memory).
package final class DeckWriter {
  package let format: DeckFormat
  /// Scores in the shortest digits that read back as the same double (JSON, JSON Lines, CSV)
  /// instead of six decimals: for checking a strategy against a reference implementation.
  package var exactScores = false
  /// Members added to each card of the next deck written as JSON, by card (`"k":v` text made
  /// by a `JSONWriter`): `deck --explain`'s explanations. Nil: none.
  package var cardMembers: [[UInt8]]?
  /// Members added to the next deck written as JSON, after its cards; nil: none.
  package var deckMembers: [UInt8]?
  private let output: ByteOutput
  private let catalog: Catalog
  private let header: RunHeader
  /// The text not yet written to the output: CSV and table in `buffer`, JSON and JSON Lines in
  /// `json`'s bytes.
  private var buffer: [UInt8] = []
  private var json = JSONWriter()
  private var decks = 0
  /// Per catalog item, the text every card of it repeats, made once: for CSV
  /// `id,name,category,`, for JSON (`jsonItems`) the id, name and category as JSON strings.
  private var itemFragments: [[UInt8]] = []
  /// Per catalog item, the members every JSON card of it repeats, `"item":..,"name":..,
  /// "category":..`, written once by a `JSONWriter` (one array read per card).
  private var jsonItems: [[UInt8]] = []
  /// The members every JSON deck of a date repeats after its user, up to its cards' opening
  /// bracket: `"date":..,"strategy":..,"seed":..,"cards":[`, for `deckFieldsDate`.
  private var deckFields: [UInt8] = []
  private var deckFieldsDate: DeckDate?

  package init(format: DeckFormat, output: ByteOutput, catalog: Catalog, header: RunHeader) {
    self.format = format
    self.output = output
    self.catalog = catalog
    self.header = header
    buffer.reserveCapacity(1 << 17)
    switch format {
    case .json, .jsonl:
      jsonItems = catalog.items.map { item in
        var w = JSONWriter()
        w.beginObject()
        w.field("item", item.id)
        w.field("name", item.name)
        w.field("category", item.category)
        w.endObject()
        return Array(w.bytes.dropFirst().dropLast())
      }
      json.bytes.reserveCapacity(1 << 17)
    case .csv:
      itemFragments = catalog.items.map { item in
        var b: [UInt8] = []
        Text.appendCSVField(item.id, to: &b)
        b.append(UInt8(ascii: ","))
        Text.appendCSVField(item.name, to: &b)
        b.append(UInt8(ascii: ","))
        Text.appendCSVField(item.category, to: &b)
        b.append(UInt8(ascii: ","))
        return b
      }
    case .table:
      break
    }
  }

  package func begin() throws(DeckIOError) {
    switch format {
    case .json:
      json.beginObject()
      json.key("run")
      header.write(to: &json)
      json.layout("\n")
      json.key("decks")
      json.beginArray()
      json.layout("\n")
    case .jsonl:
      break
    case .csv:
      buffer.append(contentsOf: "user,date,strategy,seed,rank,item,name,category,score\n".utf8)
    case .table:
      break
    }
    try flushIfNeeded(force: false)
  }

  package func write(_ deck: Deck, warnings: [String]) throws(DeckIOError) {
    switch format {
    case .json:
      if decks > 0 { json.layout("\n") }
      appendDeckJSON(deck, warnings: warnings)
    case .jsonl:
      appendDeckJSON(deck, warnings: warnings)
      json.layout("\n")
    case .csv:
      appendDeckCSV(deck)
    case .table:
      appendDeckTable(deck, warnings: warnings)
    }
    decks += 1
    try flushIfNeeded(force: false)
  }

  package func end() throws(DeckIOError) {
    switch format {
    case .json:
      if decks > 0 { json.layout("\n") }
      json.endArray()
      json.endObject()
      json.layout("\n")
    case .table where decks == 0:
      buffer.append(contentsOf: "(no decks)\n".utf8)
    default:
      break
    }
    try flushIfNeeded(force: true)
  }

  private func flushIfNeeded(force: Bool) throws(DeckIOError) {
    if force || buffer.count >= 1 << 16 {
      if !buffer.isEmpty { try output.write(buffer) }
      buffer.removeAll(keepingCapacity: true)
    }
    if force || json.bytes.count >= 1 << 16 {
      if !json.bytes.isEmpty { try output.write(json.bytes) }
      json.bytes.removeAll(keepingCapacity: true)
    }
  }

  /// One deck as one JSON object, laid out here byte for byte as the writer's calls per member
  /// would write it (a deck is written a hundred thousand times a run, a card a million):
  /// `{"user":..,"date":..,"strategy":..,"seed":..,"cards":[{"rank":1,` the dish's members
  /// `,"score":0.500000` the card's optional members `}, ...]`, the deck's optional members `}`.
  private func appendDeckJSON(_ deck: Deck, warnings: [String]) {
    if deck.date != deckFieldsDate {
      deckFields = JSONWriter.text { w in
        w.beginObject()
        w.field("date", deck.date.description)
        w.field("strategy", header.strategy)
        w.field("seed", int: header.seed)
        w.key("cards")
        w.beginArray()
        w.endArray()
        w.endObject()
      }.utf8.dropFirst().dropLast(2).map { $0 }
      deckFieldsDate = deck.date
    }
    // The writer is taken out of the object while a deck is written: one access to the stored
    // property instead of one (checked for exclusivity) per value.
    var json = JSONWriter()
    swap(&json, &self.json)
    defer { swap(&json, &self.json) }
    json.value { out in
      out.append(contentsOf: DeckWriter.userKey)
      JSONWriter.appendString(deck.user, to: &out)
      out.append(UInt8(ascii: ","))
      out.append(contentsOf: deckFields)
      for (n, card) in deck.cards.enumerated() {
        if n > 0 { out.append(UInt8(ascii: ",")) }
        appendCardJSON(card, rank: n + 1, members: cardMembers?[n], to: &out)
      }
      out.append(UInt8(ascii: "]"))
      if let members = deckMembers {
        out.append(UInt8(ascii: ","))
        out.append(contentsOf: members)
      }
      if !warnings.isEmpty {
        out.append(contentsOf: DeckWriter.warningsKey)
        var list = JSONWriter()
        list.strings(warnings)
        out.append(contentsOf: list.bytes)
      }
      out.append(UInt8(ascii: "}"))
    }
  }

  private func appendCardJSON(_ card: Card, rank: Int, members: [UInt8]?, to out: inout [UInt8]) {
    out.append(contentsOf: DeckWriter.rankKey)
    Text.appendInt(UInt64(rank), to: &out)
    out.append(UInt8(ascii: ","))
    // The dish's members, written once per run by a JSONWriter.
    out.append(contentsOf: jsonItems[Int(card.item)])
    out.append(contentsOf: DeckWriter.scoreKey)
    if exactScores && card.score.isFinite {
      out.append(contentsOf: Text.plainDecimal(card.score).utf8)
    } else {
      Text.appendFixed(card.score, decimals: 6, to: &out)
    }
    if card.pinned { out.append(contentsOf: DeckWriter.pinnedMember) }
    if let p = card.propensity {
      out.append(contentsOf: DeckWriter.propensityKey)
      Text.appendFixed(p, decimals: 9, to: &out)
    }
    if let p = card.prefixPropensity {
      // The shortest digits that read back (never an exponent): a deck's prefix propensities
      // are products that soon fall below the propensity's nine decimals. (A value that is not
      // a number is written as a propensity would be.)
      out.append(contentsOf: DeckWriter.prefixPropensityKey)
      if p.isFinite {
        out.append(contentsOf: Text.plainDecimal(p).utf8)
      } else {
        Text.appendFixed(p, decimals: 9, to: &out)
      }
    }
    if let members {
      out.append(UInt8(ascii: ","))
      out.append(contentsOf: members)
    }
    out.append(UInt8(ascii: "}"))
  }

  // The keys of a JSON deck and card, as `appendDeckJSON` lays them out.
  private static let userKey = Array(#"{"user":"#.utf8)
  private static let warningsKey = Array(#","warnings":"#.utf8)
  private static let rankKey = Array(#"{"rank":"#.utf8)
  private static let scoreKey = Array(#","score":"#.utf8)
  private static let pinnedMember = Array(#","pinned":true"#.utf8)
  private static let propensityKey = Array(#","propensity":"#.utf8)
  private static let prefixPropensityKey = Array(#","prefix_propensity":"#.utf8)

  private func appendScore(_ score: Double) {
    if exactScores && score.isFinite {
      EventWriter.appendNumber(score, to: &buffer)
    } else {
      Text.appendFixed(score, to: &buffer)
    }
  }

  private func appendDeckCSV(_ deck: Deck) {
    let prefix: [UInt8] = {
      var p: [UInt8] = []
      Text.appendCSVField(deck.user, to: &p)
      p.append(contentsOf: ",\(deck.date),".utf8)
      Text.appendCSVField(header.strategy, to: &p)
      p.append(contentsOf: ",\(header.seed),".utf8)
      return p
    }()
    for (n, card) in deck.cards.enumerated() {
      buffer.append(contentsOf: prefix)
      Text.appendInt(UInt64(n + 1), to: &buffer)
      buffer.append(UInt8(ascii: ","))
      buffer.append(contentsOf: itemFragments[Int(card.item)])
      appendScore(card.score)
      buffer.append(0x0A)
    }
  }

  private func appendDeckTable(_ deck: Deck, warnings: [String]) {
    var lines: [String] = []
    if decks > 0 { lines.append("") }
    lines.append(
      "\(deck.user)  \(deck.date) (\(deck.date.weekday))  \(header.strategy)  seed \(header.seed)  \(TextLayout.plural(deck.cards.count, "card"))"
    )
    let idWidth = max(4, deck.cards.map { Text.displayWidth(catalog[$0.item].id) }.max() ?? 0)
    let nameWidth = min(
      40, max(4, deck.cards.map { Text.displayWidth(catalog[$0.item].name) }.max() ?? 0))
    let catWidth = max(
      8, deck.cards.map { Text.displayWidth(catalog[$0.item].category) }.max() ?? 0)
    lines.append(
      "  rank  " + Text.padRight("item", idWidth) + "  " + Text.padRight("name", nameWidth) + "  "
        + Text.padRight("category", catWidth) + "     score")
    for (n, card) in deck.cards.enumerated() {
      let item = catalog[card.item]
      let name = Text.truncate(item.name, nameWidth)
      lines.append(
        "  " + Text.padLeft(String(n + 1), 4) + "  " + Text.padRight(item.id, idWidth) + "  "
          + Text.padRight(name, nameWidth) + "  " + Text.padRight(item.category, catWidth) + "  "
          + Text.padLeft(Text.fixed(card.score, decimals: 4), 8) + (card.pinned ? "  (pinned)" : "")
      )
    }
    for w in warnings { lines.append("  warning: \(w)") }
    for line in lines {
      buffer.append(contentsOf: line.utf8)
      buffer.append(0x0A)
    }
  }
}
