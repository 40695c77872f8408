import DeckBase
import DeckCore
import DeckIO
import DeckStrategies
import Foundation
import Testing

@testable import DeckJobs

/// `DeckJob` with `explain` set, called directly on the bundled Config/ and Data/.
@Suite struct DeckExplainJobTests {
  static func request(jobs: Int = 2, format: DeckFormat, explain: Bool = true) throws
    -> DeckRequest
  {
    var request = try DeckJobTests.request(jobs: jobs, format: format)
    request.explain = explain
    return request
  }

  /// A JSON document's decks with their explanations and held-back dishes taken out.
  static func withoutExplanations(_ bytes: [UInt8]) throws -> NSDictionary {
    var root = try #require(
      try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    var decks = try #require(root["decks"] as? [[String: Any]])
    for d in decks.indices {
      #expect(d < 0 || decks[d]["held_back"] is [Any])
      decks[d]["held_back"] = nil
      var cards = try #require(decks[d]["cards"] as? [[String: Any]])
      for c in cards.indices {
        #expect(cards[c]["explanation"] is [String: Any])
        cards[c]["explanation"] = nil
      }
      decks[d]["cards"] = cards
    }
    root["decks"] = decks
    return root as NSDictionary
  }

  @Test func everyDinersExplainedDocumentIsTheDeckDocumentWithExplanations() throws {
    let (outcome, explained) = try DeckJobTests.run(try Self.request(format: .json))
    let (_, plain) = try DeckJobTests.run(try Self.request(format: .json, explain: false))
    #expect(outcome.decks == 48)
    let root = try #require(
      try JSONSerialization.jsonObject(with: Data(plain)) as? [String: Any])
    #expect(try Self.withoutExplanations(explained) == root as NSDictionary)
  }

  @Test(arguments: [DeckFormat.jsonl, .csv, .table])
  func oneThreadAndFourGiveTheSameBytes(format: DeckFormat) throws {
    let (_, one) = try DeckJobTests.run(try Self.request(jobs: 1, format: format))
    let (_, four) = try DeckJobTests.run(try Self.request(jobs: 4, format: format))
    #expect(one == four)
    #expect(!one.isEmpty)
  }

  @Test func theJSONLinesCardsAreTheDecksCards() throws {
    var request = try Self.request(format: .jsonl)
    request.diners = .ids(["u01", "u02", "u03"])
    let (_, explained) = try DeckJobTests.run(request)
    var plainRequest = try Self.request(format: .jsonl, explain: false)
    plainRequest.diners = .ids(["u01", "u02", "u03"])
    let (_, plain) = try DeckJobTests.run(plainRequest)
    func lines(_ bytes: [UInt8]) throws -> [[String: Any]] {
      try String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
        try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
      }
    }
    let cards = try lines(explained).filter { $0["rank"] != nil }.map { line in
      var card = line
      card["explanation"] = nil
      for key in ["user", "date", "strategy", "seed"] { card[key] = nil }
      return card as NSDictionary
    }
    let decks = try lines(plain).flatMap { try #require($0["cards"] as? [[String: Any]]) }
    #expect(cards == decks.map { $0 as NSDictionary })
  }

  @Test func playsExplainedDeckIsItsDeck() throws {
    let request = PlayRequest(settings: try DeckJobTests.settings(), version: "0.1.0")
    let io = JobTestSupport.io()
    let inputs = try PlayJob.load(request, io)
    for id in ["u01", "u05", "u17"] {
      let diner = inputs.users.first { $0.id == id } ?? UserProfile(id: id)
      #expect(try inputs.explainedDeck(for: diner).trace.deck == inputs.deck(for: diner))
    }
  }
}
