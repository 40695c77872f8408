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
  package var exactScores: Bool {
    get { jsonEncoder.exactScores }
    set { jsonEncoder.exactScores = newValue }
  }
  /// How this writer lays out a deck as JSON: a value that other threads can use to make the
  /// decks' text beside each other (`write(json:)` then writes it in order).
  package private(set) var jsonEncoder: DeckJSONEncoder
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

  package init(format: DeckFormat, output: ByteOutput, catalog: Catalog, header: RunHeader) {
    self.format = format
    self.output = output
    self.catalog = catalog
    self.header = header
    buffer.reserveCapacity(1 << 17)
    jsonEncoder = DeckJSONEncoder(
      catalog: catalog, header: header, items: format == .json || format == .jsonl)
    switch format {
    case .json, .jsonl:
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

  /// Writes a deck whose JSON text `jsonEncoder` made (with the same warnings, and no members
  /// of `cardMembers` or `deckMembers`), as `write(_:warnings:)` would have: JSON and JSON
  /// Lines only.
  package func write(json text: ArraySlice<UInt8>) throws(DeckIOError) {
    switch format {
    case .json:
      if decks > 0 { json.layout("\n") }
      json.fragment(bytes: text)
    case .jsonl:
      json.fragment(bytes: text)
      json.layout("\n")
    case .csv, .table:
      preconditionFailure("a deck's JSON text written as \(format)")
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

  private func appendDeckJSON(_ deck: Deck, warnings: [String]) {
    // The writer is taken out of the object while a deck is written: one access to the stored
    // property instead of one (checked for exclusivity) per value.
    var json = JSONWriter()
    swap(&json, &self.json)
    defer { swap(&json, &self.json) }
    json.value { out in
      jsonEncoder.append(
        deck, warnings: warnings, cardMembers: cardMembers, deckMembers: deckMembers, to: &out)
    }
  }

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
