import DeckCore
import DeckTestSupport
import Testing

@testable import DeckSimulation

/// `feature_appeal_spread`: an appeal shared by every diner per category and tag, so that a
/// model of the dishes' features can learn it and carry it to a new dish.
@Suite("simulation: the appeal of features")
struct FeatureAppealTests {
  static let catalog = try! Catalog(items: [
    MenuItem(id: "a", name: "A", category: "soup", tags: ["hot", "fish"]),
    MenuItem(id: "b", name: "B", category: "soup", tags: ["fish", "hot"]),
    MenuItem(id: "c", name: "C", category: "soup", tags: ["hot"]),
    MenuItem(id: "d", name: "D", category: "rice"),
  ])

  @Test func dishesWithTheSameFeaturesShareTheirFeatureAppeal() {
    var config = SimulationConfig()
    config.dishAppealSpread = 0
    config.featureAppealSpread = 1
    let p = Population(catalog: Self.catalog, count: 2, config: config, seed: 7)
    #expect(p.dishAppeal[0] == p.dishAppeal[1])
    #expect(p.dishAppeal[0] != p.dishAppeal[2])
    #expect(p.dishAppeal[3] != 0)
    // Category soup's appeal + the mean of its tags': c is soup + hot, a is soup + (hot+fish)/2,
    // so a - c = (fish - hot) / 2, and d is rice alone.
    let soupAndHot = p.dishAppeal[2]
    let fishMinusHot = 2 * (p.dishAppeal[0] - soupAndHot)
    #expect(abs(fishMinusHot) > 0)
    // The same for every diner: it is in the base utility of both alike, beside their tastes.
    let config0 = { () -> SimulationConfig in
      var c = config
      c.featureAppealSpread = 0
      return c
    }()
    let q = Population(catalog: Self.catalog, count: 2, config: config0, seed: 7)
    for d in 0..<2 {
      for i in 0..<4 {
        let lift = p.baseUtility(diner: d, item: Int32(i)) - q.baseUtility(diner: d, item: Int32(i))
        #expect(abs(lift - p.dishAppeal[i]) < 1e-12)
      }
    }
  }

  @Test func offByDefaultAndTheOtherDrawsUnchanged() {
    var on = SimulationConfig()
    on.featureAppealSpread = 0.5
    let a = Population(catalog: simulationCatalog, count: 4, config: SimulationConfig(), seed: 3)
    let b = Population(catalog: simulationCatalog, count: 4, config: on, seed: 3)
    #expect(SimulationConfig().featureAppealSpread == 0)
    #expect(a.diners == b.diners)
    #expect(a.dishAppeal != b.dishAppeal)
  }
}
