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
  private let output: ByteOutput
  private let catalog: Catalog
  private let header: RunHeader
  private var buffer: [UInt8] = []
  private var decks = 0
  /// Per catalog item, the bytes every card of it repeats, made once: for JSON
  /// `,"item":"..","name":"..","category":".."` and for CSV `id,name,category,`.
  private var itemFragments: [[UInt8]] = []
  private var seedText: [UInt8] = []

  package init(format: DeckFormat, output: ByteOutput, catalog: Catalog, header: RunHeader) {
    self.format = format
    self.output = output
    self.catalog = catalog
    self.header = header
    buffer.reserveCapacity(1 << 17)
    seedText = Array(String(header.seed).utf8)
    switch format {
    case .json, .jsonl:
      itemFragments = catalog.items.map { item in
        var b: [UInt8] = []
        b.append(contentsOf: ",\"item\":".utf8)
        Text.appendJSONString(item.id, to: &b)
        b.append(contentsOf: ",\"name\":".utf8)
        Text.appendJSONString(item.name, to: &b)
        b.append(contentsOf: ",\"category\":".utf8)
        Text.appendJSONString(item.category, to: &b)
        b.append(contentsOf: ",\"score\":".utf8)
        return b
      }
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
      buffer.append(contentsOf: "{\"run\":".utf8)
      appendHeader()
      buffer.append(contentsOf: ",\n\"decks\":[\n".utf8)
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
      if decks > 0 { buffer.append(contentsOf: ",\n".utf8) }
      appendDeckJSON(deck, warnings: warnings)
    case .jsonl:
      appendDeckJSON(deck, warnings: warnings)
      buffer.append(0x0A)
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
      buffer.append(contentsOf: (decks > 0 ? "\n]}\n" : "]}\n").utf8)
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
  }

  private func appendHeader() {
    func key(_ k: String) {
      Text.appendJSONString(k, to: &buffer)
      buffer.append(UInt8(ascii: ":"))
    }
    buffer.append(UInt8(ascii: "{"))
    key("version")
    Text.appendJSONString(header.version, to: &buffer)
    buffer.append(contentsOf: ",\"command\":\"deck\",".utf8)
    if !header.arguments.isEmpty {
      key("arguments")
      buffer.append(UInt8(ascii: "["))
      for (n, argument) in header.arguments.enumerated() {
        if n > 0 { buffer.append(UInt8(ascii: ",")) }
        Text.appendJSONString(argument, to: &buffer)
      }
      buffer.append(contentsOf: "],".utf8)
    }
    key("date")
    Text.appendJSONString(header.date.description, to: &buffer)
    buffer.append(UInt8(ascii: ","))
    key("strategy")
    Text.appendJSONString(header.strategy, to: &buffer)
    buffer.append(UInt8(ascii: ","))
    key("options")
    buffer.append(UInt8(ascii: "{"))
    for (n, (k, v)) in header.options.enumerated() {
      if n > 0 { buffer.append(UInt8(ascii: ",")) }
      key(k)
      buffer.append(contentsOf: v.utf8)
    }
    buffer.append(contentsOf: "},".utf8)
    key("fitted")
    buffer.append(UInt8(ascii: "{"))
    for (n, (k, v)) in header.fitted.enumerated() {
      if n > 0 { buffer.append(UInt8(ascii: ",")) }
      key(k)
      buffer.append(contentsOf: v.utf8)
    }
    buffer.append(contentsOf: "},".utf8)
    key("seed")
    buffer.append(contentsOf: String(header.seed).utf8)
    buffer.append(UInt8(ascii: ","))
    key("size")
    buffer.append(contentsOf: String(header.size).utf8)
    buffer.append(UInt8(ascii: ","))
    key("inputs")
    buffer.append(UInt8(ascii: "["))
    for (n, input) in header.inputs.enumerated() {
      if n > 0 { buffer.append(UInt8(ascii: ",")) }
      buffer.append(UInt8(ascii: "{"))
      key("role")
      Text.appendJSONString(input.role, to: &buffer)
      buffer.append(UInt8(ascii: ","))
      key("path")
      Text.appendJSONString(input.path, to: &buffer)
      buffer.append(UInt8(ascii: ","))
      key("sha256")
      Text.appendJSONString(input.sha256, to: &buffer)
      buffer.append(UInt8(ascii: "}"))
    }
    buffer.append(contentsOf: "]}".utf8)
  }

  private func appendDeckJSON(_ deck: Deck, warnings: [String]) {
    buffer.append(contentsOf: "{\"user\":".utf8)
    Text.appendJSONString(deck.user, to: &buffer)
    buffer.append(contentsOf: ",\"date\":\"".utf8)
    buffer.append(contentsOf: deck.date.description.utf8)
    buffer.append(contentsOf: "\",\"strategy\":".utf8)
    Text.appendJSONString(header.strategy, to: &buffer)
    buffer.append(contentsOf: ",\"seed\":".utf8)
    buffer.append(contentsOf: seedText)
    buffer.append(contentsOf: ",\"cards\":[".utf8)
    for (n, card) in deck.cards.enumerated() {
      if n > 0 { buffer.append(UInt8(ascii: ",")) }
      buffer.append(contentsOf: "{\"rank\":".utf8)
      Text.appendInt(UInt64(n + 1), to: &buffer)
      buffer.append(contentsOf: itemFragments[Int(card.item)])
      appendScore(card.score)
      if card.pinned { buffer.append(contentsOf: ",\"pinned\":true".utf8) }
      if let p = card.propensity {
        buffer.append(contentsOf: ",\"propensity\":".utf8)
        Text.appendFixed(p, decimals: 9, to: &buffer)
      }
      if let p = card.prefixPropensity {
        // The shortest digits that read back (never an exponent): a deck's prefix propensities
        // are products that soon fall below the propensity's nine decimals. (A value that is not
        // a number is written as a propensity would be.)
        buffer.append(contentsOf: ",\"prefix_propensity\":".utf8)
        if p.isFinite {
          EventWriter.appendNumber(p, to: &buffer)
        } else {
          Text.appendFixed(p, decimals: 9, to: &buffer)
        }
      }
      buffer.append(UInt8(ascii: "}"))
    }
    buffer.append(UInt8(ascii: "]"))
    if !warnings.isEmpty {
      buffer.append(contentsOf: ",\"warnings\":[".utf8)
      for (n, w) in warnings.enumerated() {
        if n > 0 { buffer.append(UInt8(ascii: ",")) }
        Text.appendJSONString(w, to: &buffer)
      }
      buffer.append(UInt8(ascii: "]"))
    }
    buffer.append(UInt8(ascii: "}"))
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
