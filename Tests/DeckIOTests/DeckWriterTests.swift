import DeckCore
import Testing

@testable import DeckIO

/// Decks as written, for what a card carries beside its dish: propensities.
@Suite("deck writer: what a card carries")
struct DeckWriterTests {
  private static let catalog = try! Catalog(
    items: ["a", "b", "c"].map { MenuItem(id: $0, name: $0.uppercased(), category: "x") })
  private static let date = DeckDate(year: 2026, month: 11, day: 30)!

  /// The one deck of diner u under rules that keep the scores' order.
  private static func deck(propensities: [Double]?, prefixes: [Double]?) throws -> Deck {
    var rules = DeckRules()
    rules.size = 3
    rules.maxPerCategory = nil
    rules.avoidAdjacentCategory = false
    let builder = try DeckBuilder(catalog: catalog, rules: rules)
    let candidates = builder.candidates(for: UserProfile(id: "u"), history: nil, date: date)
    return builder.assemble(
      user: "u", date: date, candidates: candidates, scores: [0.5, 0.25, 0.125],
      propensities: propensities, prefixPropensities: prefixes)
  }

  private static func written(_ deck: Deck, _ format: DeckFormat) throws -> String {
    let out = MemoryOutput()
    let header = RunHeader(
      version: "0", date: date, strategy: "s", options: [], seed: 1, size: 3, inputs: [])
    let writer = DeckWriter(format: format, output: out, catalog: catalog, header: header)
    try writer.begin()
    try writer.write(deck, warnings: [])
    try writer.end()
    return out.text
  }

  @Test func jsonCardsCarryThePrefixPropensityAfterThePropensity() throws {
    let deck = try Self.deck(
      propensities: [0.5, 1.0 / 3.0, 0.25], prefixes: [0.5, 1.0 / 6.0, 3.1e-11])
    let line = try Self.written(deck, .jsonl)
    #expect(
      line == #"{"user":"u","date":"2026-11-30","strategy":"s","seed":1,"cards":["#
        + #"{"rank":1,"item":"a","name":"A","category":"x","score":0.500000,"propensity":0.500000000,"prefix_propensity":0.5},"#
        + #"{"rank":2,"item":"b","name":"B","category":"x","score":0.250000,"propensity":0.333333333,"prefix_propensity":0.16666666666666666},"#
        + #"{"rank":3,"item":"c","name":"C","category":"x","score":0.125000,"propensity":0.250000000,"prefix_propensity":0.000000000031}]}"#
        + "\n")
    // The JSON document's decks are the same objects.
    #expect(try Self.written(deck, .json).contains(String(line.dropLast())))
    // CSV and the table carry no propensities, with or without prefixes.
    let plain = try Self.deck(propensities: [0.5, 1.0 / 3.0, 0.25], prefixes: nil)
    for format in [DeckFormat.csv, .table] {
      #expect(try Self.written(deck, format) == Self.written(plain, format), "\(format)")
    }
  }

  @Test func cardsWithoutPrefixPropensitiesHaveNoField() throws {
    let plain = try Self.written(
      try Self.deck(propensities: [0.5, 0.25, 0.25], prefixes: nil), .jsonl)
    #expect(plain.contains(#""propensity":0.500000000}"#))
    #expect(!plain.contains("prefix_propensity"))
    // Nor without any propensity.
    let none = try Self.written(try Self.deck(propensities: nil, prefixes: nil), .jsonl)
    #expect(!none.contains("propensity"))
  }

  /// The workers' text of a deck (`DeckJSONEncoder`, written by `write(json:)` from a slice of
  /// its batch's text) is what the writer writes of the deck itself: JSON and JSON Lines, a
  /// pinned card, propensities with and without prefixes, warnings (escaped), exact scores, a
  /// deck of another date, several decks in a row.
  @Test func theWorkersTextIsTheWritersDeck() throws {
    var decks = [
      try Self.deck(propensities: [0.5, 1.0 / 3.0, 0.25], prefixes: [0.5, 1.0 / 6.0, 3.1e-11]),
      try Self.deck(propensities: nil, prefixes: nil),
      try Self.deck(propensities: [0.5, 0.25, 0.25], prefixes: nil),
    ]
    decks[1].cards[0].pinned = true
    decks[1].user = "quote \" and \u{E9}"
    decks[2].date = Self.date.adding(days: 1)
    let warnings = [[], ["deck has 2 of 3 cards (held back: 1 by \"diet\")"], ["a", "b"]]
    let header = RunHeader(
      version: "0", date: Self.date, strategy: "s\t", options: [], seed: 7, size: 3, inputs: [])
    for format in [DeckFormat.json, .jsonl] {
      for exact in [false, true] {
        var texts: [String] = []
        for byText in [false, true] {
          let out = MemoryOutput()
          let writer = DeckWriter(
            format: format, output: out, catalog: Self.catalog, header: header)
          writer.exactScores = exact
          try writer.begin()
          // The workers lay out a batch's decks in one array and the writer writes each
          // deck's slice of it.
          var batch: [UInt8] = []
          var ends: [Int] = []
          for (deck, w) in zip(decks, warnings) {
            if byText {
              writer.jsonEncoder.append(deck, warnings: w, to: &batch)
              ends.append(batch.count)
            } else {
              try writer.write(deck, warnings: w)
            }
          }
          for (k, end) in ends.enumerated() {
            try writer.write(json: batch[(k == 0 ? 0 : ends[k - 1])..<end])
          }
          try writer.end()
          texts.append(out.text)
        }
        #expect(texts[0] == texts[1], "\(format), exact \(exact)")
        #expect(texts[0].contains(#""pinned":true"#) && texts[0].contains("2026-12-01"))
      }
    }
  }
}
