import DeckCore
import DeckTestSupport
import Foundation
import Testing

@testable import DeckSimulation

@Suite("simulation: diners and their model")
struct SimulationModelTests {
  @Test("generated ids are s and a zero-padded number, wider for larger populations")
  func ids() {
    #expect(Population.dinerID(1, of: 3) == "s00001")
    #expect(Population.dinerID(99_999, of: 99_999) == "s99999")
    #expect(Population.dinerID(7, of: 100_000) == "s000007")
    #expect(Population.dinerID(100_000, of: 100_000) == "s100000")
    let population = Population(
      catalog: simulationCatalog, count: 3, config: SimulationConfig(), seed: 1)
    #expect(population.diners.map(\.id) == ["s00001", "s00002", "s00003"])
    #expect(population.index(of: "s00003") == 2)
    #expect(population.index(of: "s00004") == nil)
  }

  @Test("a diner's tastes depend on the seed and the id, not on the population size")
  func stableTastes() {
    let config = SimulationConfig()
    let small = Population(catalog: simulationCatalog, count: 5, config: config, seed: 3)
    let large = Population(catalog: simulationCatalog, count: 50, config: config, seed: 3)
    let other = Population(catalog: simulationCatalog, count: 5, config: config, seed: 4)
    #expect(Array(large.diners.prefix(5)) == small.diners)
    #expect(large.dishAppeal == small.dishAppeal)
    #expect(other.diners[0] != small.diners[0])
    #expect(small.diners[0].categoryTaste.count == simulationCatalog.categories.count)
    #expect(small.diners[0].tagTaste.count == simulationCatalog.tags.count)
  }

  @Test("given profiles keep their diets, allergens and disliked categories")
  func givenProfiles() {
    let users = [
      UserProfile(id: "ann", diets: ["vegan"], allergens: ["soy"], dislikedCategories: ["curry"]),
      UserProfile(id: "bo"),
    ]
    let population = Population(
      catalog: simulationCatalog, users: users, config: SimulationConfig(), seed: 1)
    #expect(population.diners.map(\.profile) == users)
    #expect(population.index(of: "bo") == 1)
  }

  @Test("restrictions: vegetarian share, one allergy from the catalog's vocabulary")
  func restrictions() throws {
    var config = SimulationConfig()
    config.vegetarianShare = 1
    config.allergyShare = 1
    let all = Population(catalog: simulationCatalog, count: 200, config: config, seed: 2)
    let vocabulary = Set(simulationCatalog.items.flatMap(\.allergens))
    #expect(all.diners.allSatisfy { $0.profile.diets == ["vegetarian"] })
    #expect(all.diners.allSatisfy { $0.profile.allergens.count == 1 })
    #expect(all.diners.allSatisfy { vocabulary.contains($0.profile.allergens[0]) })
    #expect(Set(all.diners.map { $0.profile.allergens[0] }).count > vocabulary.count / 2)

    config = SimulationConfig()
    let some = Population(catalog: simulationCatalog, count: 2000, config: config, seed: 2)
    let vegetarians = some.diners.filter { !$0.profile.diets.isEmpty }.count
    let allergic = some.diners.filter { !$0.profile.allergens.isEmpty }.count
    #expect((150...250).contains(vegetarians))  // 10% of 2000
    #expect((240...360).contains(allergic))  // 15% of 2000

    // No vegetarian dish, no allergens named: nobody gets a restriction they cannot meet.
    let plain = try Catalog(items: [
      MenuItem(id: "a", name: "A", category: "x"), MenuItem(id: "b", name: "B", category: "y"),
    ])
    config.vegetarianShare = 1
    config.allergyShare = 1
    let none = Population(catalog: plain, count: 20, config: config, seed: 2)
    #expect(none.diners.allSatisfy { $0.profile.diets.isEmpty && $0.profile.allergens.isEmpty })
  }

  @Test("true utility: appeal - pickiness + category + mean tag taste - price term")
  func utility() throws {
    let catalog = try Catalog(items: [
      MenuItem(id: "a", name: "A", category: "x", tags: ["t1", "t2"], price: 300),
      MenuItem(id: "b", name: "B", category: "y", tags: [], price: 100),
      MenuItem(id: "c", name: "C", category: "x", tags: ["t2"]),
    ])
    let population = Population(catalog: catalog, count: 1, config: SimulationConfig(), seed: 9)
    let d = population.diners[0]
    let a = population.dishAppeal
    #expect(population.referencePrice == 200)
    #expect(
      population.baseUtility(diner: 0, item: 0)
        == a[0] - d.pickiness + d.categoryTaste[0] + (d.tagTaste[0] + d.tagTaste[1]) / 2
        - d.priceSensitivity * 0.5)
    #expect(
      population.baseUtility(diner: 0, item: 1)
        == a[1] - d.pickiness + d.categoryTaste[1] + d.priceSensitivity * 0.5)
    #expect(
      population.baseUtility(diner: 0, item: 2)
        == a[2] - d.pickiness + d.categoryTaste[0] + d.tagTaste[1])
  }

  @Test("taste draws have the configured spreads; price sensitivity the configured mean")
  func distributions() {
    var config = SimulationConfig()
    config.pickinessMean = 2
    config.pickinessSpread = 0.5
    config.priceSensitivityMean = 1.5
    config.priceSensitivitySpread = 0.5
    let population = Population(catalog: simulationCatalog, count: 3000, config: config, seed: 5)
    let n = Double(population.count)
    let pickiness = population.diners.map(\.pickiness)
    let mean = pickiness.reduce(0, +) / n
    let sd = (pickiness.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / n).squareRoot()
    #expect(abs(mean - 2) < 0.03)
    #expect(abs(sd - 0.5) < 0.02)
    let price = population.diners.map(\.priceSensitivity)
    #expect(price.allSatisfy { $0 > 0 })
    #expect(abs(price.reduce(0, +) / n - 1.5) < 0.05)
    let taste = population.diners.map { $0.categoryTaste[0] }
    let tasteSD = (taste.map { $0 * $0 }.reduce(0, +) / n).squareRoot()
    #expect(abs(tasteSD - 1.0) < 0.04)
  }

  @Test("exp from basic arithmetic agrees with the C library to the last bit or two")
  func exp() {
    var stream = RandomStream(seed: 11)
    for _ in 0..<10_000 {
      let x = (stream.nextDouble() - 0.5) * 200
      let ours = SimulationMath.exp(x)
      let libm = Foundation.exp(x)
      #expect(abs(ours - libm) <= 4 * libm.ulp)
    }
    #expect(SimulationMath.exp(0) == 1)
    #expect(abs(SimulationMath.exp(1) - 2.718_281_828_459_045) <= 2.718_281_828_459_045.ulp)
    #expect(SimulationMath.exp(-745.2) == 0)
    #expect(SimulationMath.exp(710) == .infinity)
    #expect(SimulationMath.exp(-740) > 0)
  }

  @Test("logistic and half-life decay at their boundaries")
  func logisticAndDecay() {
    #expect(SimulationMath.logistic(0) == 0.5)
    #expect(SimulationMath.logistic(800) == 1)
    #expect(SimulationMath.logistic(-800) == 0)
    #expect(
      abs(SimulationMath.logistic(2) + SimulationMath.logistic(-2) - 1) <= 2 * Double.ulpOfOne)
    #expect(SimulationMath.halfLifeDecay(days: 0, halfLife: 0) == 1)
    #expect(SimulationMath.halfLifeDecay(days: 1, halfLife: 0) == 0)
    #expect(SimulationMath.halfLifeDecay(days: 2, halfLife: 2) == 0.5)
    #expect(SimulationMath.halfLifeDecay(days: 3, halfLife: 1) == 0.125)
    #expect(SimulationMath.halfLifeDecay(days: -1, halfLife: 1) == 1)
    #expect(SimulationMath.halfLifeDecay(days: 30, halfLife: 1.5) == 0x1.0p-20)
    let third = SimulationMath.halfLifeDecay(days: 1, halfLife: 3)
    #expect(abs(third * third * third - 0.5) < 1e-15)
  }

  @Test("normal draws take exactly 12 uniforms and stay within -6...6")
  func normal() {
    var a = RandomStream(seed: 3)
    var b = RandomStream(seed: 3)
    let z = SimulationMath.normal(&a)
    var sum = 0.0
    for _ in 0..<12 { sum += b.nextDouble() }
    #expect(z == sum - 6)
    #expect(a.next() == b.next())
  }
}
