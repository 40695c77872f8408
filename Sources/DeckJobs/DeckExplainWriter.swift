import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

/// Writes explained decks (`deck --explain`) in a deck format, one deck at a time:
/// - json: the deck document (`DeckWriter`), each card with an `explanation` object and each
///   deck with its `held_back` dishes;
/// - jsonl: one line per card, the card's members (as in a deck) and its `explanation`, then
///   one line per deck with held-back dishes, `{"user",...,"held_back":[...]}`;
/// - csv: tidy rows, one per card and part of its explanation (see `csvHeader`);
/// - table: per card its line and a few indented lines of reasons, per deck its held-back
///   dishes.
package final class DeckExplainWriter {
  /// The CSV columns: the deck's, the card's rank and dish, then what the row says.
  package static let csvHeader = "user,date,strategy,seed,rank,item,kind,name,about,value,detail"

  private let format: DeckFormat
  private let output: ByteOutput
  private let header: RunHeader
  private let text: DeckExplainText
  /// The deck document's writer (json only).
  private let decks: DeckWriter?
  private var buffer: [UInt8] = []
  private var written = 0
  private let exactScores: Bool

  package init(
    format: DeckFormat, output: ByteOutput, catalog: Catalog, rules: DeckRules, header: RunHeader,
    exactScores: Bool
  ) {
    self.format = format
    self.output = output
    self.header = header
    self.exactScores = exactScores
    text = DeckExplainText(catalog: catalog, rules: rules)
    if format == .json {
      let writer = DeckWriter(format: .json, output: output, catalog: catalog, header: header)
      writer.exactScores = exactScores
      decks = writer
    } else {
      decks = nil
    }
  }

  package func begin() throws(DeckIOError) {
    if let decks { return try decks.begin() }
    if format == .csv { buffer.append(contentsOf: (Self.csvHeader + "\n").utf8) }
  }

  package func write(_ explained: ExplainedDeck, warnings: [String]) throws(DeckIOError) {
    let trace = explained.trace
    switch format {
    case .json:
      decks!.cardMembers = zip(trace.cards, explained.scores).map(text.explanationMembers)
      var w = JSONWriter()
      w.beginObject()
      w.key("held_back")
      text.heldBackJSON(trace.heldBack, &w)
      w.endObject()
      decks!.deckMembers = Array(w.bytes.dropFirst().dropLast())
      try decks!.write(trace.deck, warnings: warnings)
    case .jsonl:
      appendLines(explained)
    case .csv:
      appendRows(explained)
    case .table:
      appendTable(explained, warnings: warnings)
    }
    written += 1
    if buffer.count >= 1 << 16 {
      try output.write(buffer)
      buffer.removeAll(keepingCapacity: true)
    }
  }

  package func end() throws(DeckIOError) {
    if let decks { return try decks.end() }
    if format == .table && written == 0 { buffer.append(contentsOf: "(no decks)\n".utf8) }
    if !buffer.isEmpty { try output.write(buffer) }
    buffer.removeAll()
  }

  /// `"user":..,"date":..,"strategy":..,"seed":..` of a deck's lines.
  private func deckMembers(_ deck: Deck, _ w: inout JSONWriter) {
    w.field("user", deck.user)
    w.field("date", deck.date.description)
    w.field("strategy", header.strategy)
    w.field("seed", int: header.seed)
  }

  private func appendLines(_ explained: ExplainedDeck) {
    let deck = explained.trace.deck
    var w = JSONWriter()
    for (n, card) in deck.cards.enumerated() {
      let item = text.catalog[card.item]
      w.beginObject()
      deckMembers(deck, &w)
      w.field("rank", int: n + 1)
      w.field("item", item.id)
      w.field("name", item.name)
      w.field("category", item.category)
      w.key("score")
      if exactScores && card.score.isFinite {
        w.plainDecimal(card.score)
      } else {
        w.fixed(card.score, decimals: 6)
      }
      if card.pinned { w.field("pinned", bool: true) }
      if let p = card.propensity {
        w.key("propensity")
        w.fixed(p, decimals: 9)
      }
      if let p = card.prefixPropensity {
        w.key("prefix_propensity")
        if p.isFinite { w.plainDecimal(p) } else { w.fixed(p, decimals: 9) }
      }
      w.members(
        bytes: text.explanationMembers(explained.trace.cards[n], explained.scores[n]))
      w.endObject()
      w.layout("\n")
    }
    if !explained.trace.heldBack.isEmpty {
      w.beginObject()
      deckMembers(deck, &w)
      w.key("held_back")
      text.heldBackJSON(explained.trace.heldBack, &w)
      w.endObject()
      w.layout("\n")
    }
    buffer.append(contentsOf: w.bytes)
  }

  private func appendRows(_ explained: ExplainedDeck) {
    let deck = explained.trace.deck
    var prefix: [UInt8] = []
    Text.appendCSVField(deck.user, to: &prefix)
    prefix.append(contentsOf: ",\(deck.date),".utf8)
    Text.appendCSVField(header.strategy, to: &prefix)
    prefix.append(contentsOf: ",\(header.seed),".utf8)
    func row(_ rank: Int?, _ item: Int32, _ cells: [String]) {
      buffer.append(contentsOf: prefix)
      if let rank { Text.appendInt(UInt64(rank), to: &buffer) }
      buffer.append(UInt8(ascii: ","))
      Text.appendCSVField(text.catalog[item].id, to: &buffer)
      for cell in cells {
        buffer.append(UInt8(ascii: ","))
        Text.appendCSVField(cell, to: &buffer)
      }
      buffer.append(0x0A)
    }
    let number = JSONWriter.numberText
    for (n, card) in explained.trace.cards.enumerated() {
      let score = explained.scores[n]
      let item = card.item
      row(n + 1, item, ["card", "score", "", number(deck.cards[n].score), ""])
      row(n + 1, item, ["card", "strategy_score", "", number(card.strategyScore), score.formula])
      row(n + 1, item, ["card", "rank_before_rules", "", String(card.rankBeforeRules), ""])
      for p in score.terms {
        row(n + 1, item, ["part", p.name, p.about ?? "", number(p.value), ""])
      }
      for p in score.inputs {
        row(n + 1, item, ["input", p.name, p.about ?? "", number(p.value), ""])
      }
      for r in card.reasons {
        row(
          n + 1, item,
          [
            "rule", DeckExplainText.kind(r.rule), text.about(r), r.without.map(String.init) ?? "",
            text.text(r, at: card.position),
          ])
      }
      for d in card.displaced {
        let id = text.catalog[d.item].id
        let rank = String(d.rankBeforeRules)
        if d.reasons.isEmpty {
          row(
            n + 1, item,
            [
              "displaced", DeckExplainText.outranked, id, rank,
              "outranked by dishes the rules moved up",
            ])
        }
        for r in d.reasons {
          row(
            n + 1, item,
            ["displaced", DeckExplainText.kind(r.rule), id, rank, text.text(r, at: d.position)])
        }
      }
    }
    for h in explained.trace.heldBack {
      let (about, value) = text.heldBackCells(h)
      row(nil, h.item, ["held_back", DeckExplainText.kind(h.reason), about, value, text.text(h)])
    }
  }

  private func appendTable(_ explained: ExplainedDeck, warnings: [String]) {
    let deck = explained.trace.deck
    let catalog = text.catalog
    var lines: [String] = []
    if written > 0 { lines.append("") }
    lines.append(
      "\(deck.user)  \(deck.date) (\(deck.date.weekday))  \(header.strategy)  seed \(header.seed)"
        + "  \(TextLayout.plural(deck.cards.count, "card"))")
    for (n, card) in explained.trace.cards.enumerated() {
      let item = catalog[card.item]
      lines.append(
        "  " + Text.padLeft(String(n + 1), 4) + "  \(item.id)  \(item.name)  (\(item.category))"
          + (deck.cards[n].pinned ? "  (pinned)" : ""))
      for line in text.lines(card, explained.scores[n], keyScore: deck.cards[n].score) {
        lines.append("        " + line)
      }
    }
    if !explained.trace.heldBack.isEmpty {
      lines.append("  held back:")
      for h in explained.trace.heldBack {
        lines.append("        \(catalog[h.item].id)  \(catalog[h.item].name): \(text.text(h))")
      }
    }
    for w in warnings { lines.append("  warning: \(w)") }
    for line in lines {
      buffer.append(contentsOf: line.utf8)
      buffer.append(0x0A)
    }
  }
}
