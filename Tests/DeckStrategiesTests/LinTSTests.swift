import DeckCore
import Foundation
import Testing

@testable import DeckStrategies

/// `lints`' propensities: consistent with its own ranking, exact where they can be, and close to
/// the exact probability where it is known.
@Suite struct LinTSTests {
  static let items = [
    "zaru-soba:noodles", "tonkatsu:fried", "katsu-curry:fried", "kake-soba:noodles",
  ]
  static let events =
    exampleSwipes("zaru-soba", right: 4, left: 2) + exampleSwipes("tonkatsu", right: 2, left: 4)

  static func scored(
    _ options: [String: String], places: Int? = nil, user: String = "u1", candidates: [Int32]? = nil
  ) throws -> (Scores, ExampleRunner.Fixture) {
    let f = try fixture(items: items, events: events)
    let strategy = try learned("lints", options, on: f)
    var context = ScoringContext(
      user: UserProfile(id: user), userHistory: f.history.users[user], date: f.date,
      candidates: candidates ?? [0, 1, 2, 3], seed: 42)
    context.places = places
    return (strategy.score(&context), f)
  }

  @Test func propensitiesAreConsistentWithTheRanking() throws {
    for user in ["u1", "u2", "u3", "u4"] {
      let (scores, _) = try Self.scored(["samples": "200", "v": "1"], user: user)
      let values = scores.values
      let order = values.indices.sorted { values[$0] > values[$1] }
      let p = try #require(scores.propensities)
      let prefix = try #require(scores.prefixPropensities)
      for i in order {
        #expect(p[i] > 0 && p[i] <= 1)
        #expect(prefix[i] > 0 && prefix[i] <= p[i] + 1e-15)
      }
      // The first card's prefix is its propensity; prefixes never grow along the ranking.
      #expect(prefix[order[0]] == p[order[0]])
      for k in 1..<order.count { #expect(prefix[order[k]] <= prefix[order[k - 1]]) }
      // Of a position, each draw has exactly one card there: at most 1 in all (the others' shares).
      #expect(order.map { p[$0] }.allSatisfy { $0 >= 1.0 / 201 })
    }
  }

  @Test func onlyTheShownPlacesCarryPropensities() throws {
    let (scores, _) = try Self.scored(["samples": "50"], places: 2)
    let values = scores.values
    let order = values.indices.sorted { values[$0] > values[$1] }
    let p = try #require(scores.propensities)
    #expect(p[order[0]] > 0 && p[order[1]] > 0)
    #expect(p[order[2]] == 0 && p[order[3]] == 0)
  }

  @Test func greedyAndSingleCandidatesAreExact() throws {
    let (greedy, _) = try Self.scored(["v": "0"])
    #expect(greedy.propensities == [1, 1, 1, 1])
    #expect(greedy.prefixPropensities == [1, 1, 1, 1])
    let (one, _) = try Self.scored(["v": "1"], candidates: [2])
    #expect(one.propensities == [1])
  }

  /// Disjoint with two dishes: the sampled scores are independent normals, so the first card's
  /// probability is Phi((m_a - m_b) / (v sqrt(s_a + s_b))); the estimate from 4,000 draws is
  /// within five binomial standard errors of it.
  @Test func theFirstCardsPropensityMatchesTheNormalProbability() throws {
    let f = try fixture(items: Self.items, events: Self.events)
    let v = 0.8
    let options = ["v": String(v), "model": "disjoint", "lambda": "1", "samples": "4000"]
    let strategy = try learned("lints", options, on: f)
    let model = try LinearBanditModel(
      kind: .disjoint, lambda: 1, encoding: FeatureEncoding(catalog: f.catalog, profiles: []),
      history: f.history, profiles: [:], factors: false)
    let a = model.predict(x: [0], item: 0)
    let b = model.predict(x: [0], item: 1)
    let z = (a.mean - b.mean) / (v * (a.variance + b.variance).squareRoot())
    let exact = 0.5 * erfc(-z / 2.0.squareRoot())
    for user in ["u1", "u2", "u3"] {
      var context = ScoringContext(
        user: UserProfile(id: user), userHistory: nil, date: f.date, candidates: [0, 1], seed: 42)
      let scores = strategy.score(&context)
      let first = scores.values[0] > scores.values[1] ? 0 : 1
      let p = try #require(scores.propensities)[first]
      let truth = first == 0 ? exact : 1 - exact
      let error = (truth * (1 - truth) / 4000).squareRoot()
      #expect(abs(p - truth) <= 5 * error + 1.0 / 4001, "\(user): \(p) against \(truth)")
    }
  }
}
