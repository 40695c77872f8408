import DeckCore
import DeckStrategies
import DeckTestSupport
import Testing

@testable import DeckSimulation

/// A strategy that gives every candidate the same propensity (0 is what a plugin may send), and
/// the same prefix propensity when given one.
private final class FixedPropensity: RankingStrategy {
  let propensity: Double
  let prefix: Double?
  init(_ propensity: Double, prefix: Double? = nil) {
    self.propensity = propensity
    self.prefix = prefix
  }

  var description: StrategyDescription {
    StrategyDescription(identifier: "fixed", summary: "every candidate the same propensity")
  }

  func learn(catalog: Catalog, history: History) throws(StrategyError) {}

  func score(_ batch: inout [ScoringContext]) throws(StrategyError) -> [Scores] {
    batch.map { c in
      Scores(
        c.candidates.map { -Double($0) },
        propensities: Array(repeating: propensity, count: c.candidates.count),
        prefixPropensities: prefix.map { Array(repeating: $0, count: c.candidates.count) })
    }
  }
}

@Suite struct SimulationLimitsTests {
  /// A shown card with propensity 0 stopped `simulate --events` in the event writer's
  /// precondition (exit 132); it is the strategy's error, named with the card.
  @Test(arguments: [0.0, -0.5, 1.5])
  func aShownCardsPropensityOutsideZeroToOneIsTheStrategysError(propensity: Double) throws {
    let population = Population(
      catalog: simulationCatalog, count: 3, config: SimulationConfig(), seed: 7)
    let builder = try DeckBuilder(catalog: simulationCatalog, rules: DeckRules())
    let simulator = Simulator(
      population: population, builder: builder, seed: 7, start: simulationStart, days: 1)
    do {
      _ = try simulator.run(strategy: FixedPropensity(propensity))
      Issue.record("simulated with propensity \(propensity)")
    } catch let error as StrategyError {
      guard case .failed(let strategy, let message) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(strategy == "fixed")
      #expect(message.contains("at position 1, the propensity \(propensity); a shown card's"))
    }
    // A propensity in (0, 1] is logged as it is.
    var logged: [Double?] = []
    _ = try simulator.run(strategy: FixedPropensity(0.25), events: { logged.append($0.propensity) })
    #expect(!logged.isEmpty && logged.allSatisfy { $0 == 0.25 })
  }

  /// A prefix propensity outside (0, 1] is refused the same way, before anything is logged.
  @Test(arguments: [0.0, -0.5, 1.5, .nan])
  func aShownCardsPrefixPropensityOutsideZeroToOneIsTheStrategysError(prefix: Double) throws {
    let population = Population(
      catalog: simulationCatalog, count: 3, config: SimulationConfig(), seed: 7)
    let builder = try DeckBuilder(catalog: simulationCatalog, rules: DeckRules())
    let simulator = Simulator(
      population: population, builder: builder, seed: 7, start: simulationStart, days: 1)
    var events = 0
    do {
      _ = try simulator.run(
        strategy: FixedPropensity(0.25, prefix: prefix), events: { _ in events += 1 })
      Issue.record("simulated with prefix propensity \(prefix)")
    } catch let error as StrategyError {
      guard case .failed(let strategy, let message) = error else {
        Issue.record("unexpected \(error)")
        return
      }
      #expect(strategy == "fixed")
      #expect(
        message.contains(
          "at position 1, the prefix propensity \(prefix); the probability of the cards shown up "
            + "to a card is above 0 and at most 1"), "\(message)")
    }
    #expect(events == 0)
    // One in (0, 1] is logged as it is, beside the propensity.
    var logged: [(Double?, Double?)] = []
    _ = try simulator.run(
      strategy: FixedPropensity(0.25, prefix: 0.125),
      events: { logged.append(($0.propensity, $0.prefixPropensity)) })
    #expect(!logged.isEmpty && logged.allSatisfy { $0.0 == 0.25 && $0.1 == 0.125 })
  }
}
