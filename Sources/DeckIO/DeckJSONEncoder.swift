import DeckBase
import DeckCore

/// A deck as one JSON object, laid out byte for byte as a `JSONWriter`'s calls per member would
/// write it (a deck is written a hundred thousand times a run, a card a million):
/// `{"user":..,"date":..,"strategy":..,"seed":..,"cards":[{"rank":1,` the dish's members
/// `,"score":0.500000` the card's optional members `}, ...]`, the deck's optional members `}`.
/// A value: the workers that build decks make their text with it, side by side, and the
/// `DeckWriter` that made it writes the texts in order (`DeckWriter.write(json:)`).
package struct DeckJSONEncoder: Sendable {
  /// Scores in the shortest digits that read back (see `DeckWriter.exactScores`).
  package var exactScores = false
  /// Per catalog item, the members every JSON card of it repeats, `"item":..,"name":..,
  /// "category":..`, written once by a `JSONWriter`: item i's are `itemText[itemStart[i] ..<
  /// itemStart[i + 1]]`. One flat array, so that a card reads it without retaining an array
  /// of its own (which the threads that share the encoder would contend for).
  private let itemText: [UInt8]
  private let itemStart: [Int]
  private let strategy: String
  private let seed: UInt64
  /// The members every deck of the run's date repeats after its user, up to its cards' opening
  /// bracket: `"date":..,"strategy":..,"seed":..,"cards":[`.
  private let runDate: DeckDate
  private let runDateFields: [UInt8]

  /// `items`: make the catalog's members (false for a writer of other formats).
  init(catalog: Catalog, header: RunHeader, items: Bool) {
    var text: [UInt8] = []
    var start = [0]
    for item in items ? catalog.items : [] {
      var w = JSONWriter()
      w.beginObject()
      w.field("item", item.id)
      w.field("name", item.name)
      w.field("category", item.category)
      w.endObject()
      text += w.bytes.dropFirst().dropLast()
      start.append(text.count)
    }
    (itemText, itemStart) = (text, start)
    strategy = header.strategy
    seed = header.seed
    runDate = header.date
    runDateFields = DeckJSONEncoder.deckFields(header.date, header.strategy, header.seed)
  }

  private static func deckFields(_ date: DeckDate, _ strategy: String, _ seed: UInt64)
    -> [UInt8]
  {
    var w = JSONWriter()
    w.beginObject()
    w.field("date", date.description)
    w.field("strategy", strategy)
    w.field("seed", int: seed)
    w.key("cards")
    w.beginArray()
    w.endArray()
    w.endObject()
    // Without the braces and the cards' closing bracket.
    return Array(w.bytes.dropFirst().dropLast(2))
  }

  /// Appends the deck's JSON text, with `warnings`, to `out` (the texts of a batch of decks in
  /// one array).
  package func append(_ deck: Deck, warnings: [String], to out: inout [UInt8]) {
    append(deck, warnings: warnings, cardMembers: nil, deckMembers: nil, to: &out)
  }

  /// Appends the deck's JSON text to `out`: `cardMembers` (by card) and `deckMembers` are
  /// members added to each card and to the deck, as `"k":v` text made by a `JSONWriter`.
  func append(
    _ deck: Deck, warnings: [String], cardMembers: [[UInt8]]?, deckMembers: [UInt8]?,
    to out: inout [UInt8]
  ) {
    out.append(contentsOf: DeckJSONEncoder.userKey)
    JSONWriter.appendString(deck.user, to: &out)
    out.append(UInt8(ascii: ","))
    if deck.date == runDate {
      out.append(contentsOf: runDateFields)
    } else {
      out.append(contentsOf: DeckJSONEncoder.deckFields(deck.date, strategy, seed))
    }
    for (n, card) in deck.cards.enumerated() {
      if n > 0 { out.append(UInt8(ascii: ",")) }
      appendCard(card, rank: n + 1, members: cardMembers?[n], to: &out)
    }
    out.append(UInt8(ascii: "]"))
    if let members = deckMembers {
      out.append(UInt8(ascii: ","))
      out.append(contentsOf: members)
    }
    if !warnings.isEmpty {
      out.append(contentsOf: DeckJSONEncoder.warningsKey)
      var list = JSONWriter()
      list.strings(warnings)
      out.append(contentsOf: list.bytes)
    }
    out.append(UInt8(ascii: "}"))
  }

  private func appendCard(_ card: Card, rank: Int, members: [UInt8]?, to out: inout [UInt8]) {
    out.append(contentsOf: DeckJSONEncoder.rankKey)
    Text.appendInt(UInt64(rank), to: &out)
    out.append(UInt8(ascii: ","))
    // The dish's members, written once per run by a JSONWriter.
    let i = Int(card.item)
    itemText.withUnsafeBufferPointer { text in
      out.append(contentsOf: UnsafeBufferPointer(rebasing: text[itemStart[i]..<itemStart[i + 1]]))
    }
    out.append(contentsOf: DeckJSONEncoder.scoreKey)
    if exactScores && card.score.isFinite {
      out.append(contentsOf: Text.plainDecimal(card.score).utf8)
    } else {
      Text.appendFixed(card.score, decimals: 6, to: &out)
    }
    if card.pinned { out.append(contentsOf: DeckJSONEncoder.pinnedMember) }
    if let p = card.propensity {
      out.append(contentsOf: DeckJSONEncoder.propensityKey)
      Text.appendFixed(p, decimals: 9, to: &out)
    }
    if let p = card.prefixPropensity {
      // The shortest digits that read back (never an exponent): a deck's prefix propensities
      // are products that soon fall below the propensity's nine decimals. (A value that is not
      // a number is written as a propensity would be.)
      out.append(contentsOf: DeckJSONEncoder.prefixPropensityKey)
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

  // The keys of a JSON deck and card, as `append` lays them out.
  private static let userKey = Array(#"{"user":"#.utf8)
  private static let warningsKey = Array(#","warnings":"#.utf8)
  private static let rankKey = Array(#"{"rank":"#.utf8)
  private static let scoreKey = Array(#","score":"#.utf8)
  private static let pinnedMember = Array(#","pinned":true"#.utf8)
  private static let propensityKey = Array(#","propensity":"#.utf8)
  private static let prefixPropensityKey = Array(#","prefix_propensity":"#.utf8)
}
