import DeckBase
import DeckCore
import DeckIO
import Testing

@testable import DeckJobs

@Suite("Config: the restaurant's rules")
struct ConfigRulesTests {
  private func parse(_ text: String) throws -> RestaurantRulesConfig {
    try RestaurantRulesConfig.parse(try JSONParser.parse(text, file: "menudeck.json"))
  }

  private func message(_ text: String) -> String? {
    do {
      _ = try parse(text)
      return nil
    } catch {
      return "\(error)"
    }
  }

  @Test("each action, target and window")
  func rules() throws {
    let c = try parse(
      """
      [{"pin": 3, "dish": "tiramisu", "name": "dessert spot"},
       {"boost": 2.5, "category": "soups", "diners": ["u01"], "valid_from": "2026-12-01",
        "valid_until": "2026-12-07"},
       {"bury": 4, "tag": "spicy", "weekdays": ["mon", "Friday"]},
       {"hide": true, "dish": "oysters"}]
      """)
    #expect(
      c.rules == [
        RestaurantRule(.pin(position: 3), .dish("tiramisu"), name: "dessert spot"),
        RestaurantRule(
          .boost(factor: 2.5), .category("soups"), diners: ["u01"],
          validFrom: DeckDate(year: 2026, month: 12, day: 1),
          validUntil: DeckDate(year: 2026, month: 12, day: 7)),
        RestaurantRule(.bury(factor: 4), .tag("spicy"), weekdays: [.monday, .friday]),
        RestaurantRule(.hide, .dish("oysters")),
      ])
    #expect(c.locations[1]["category"]?.line == 2)
  }

  @Test("errors name the file, line and field")
  func errors() {
    #expect(
      message(#"[{"hide": true, "dish": "a", "colour": 1}]"#)?.hasPrefix(
        "menudeck.json:1:") == true)
    #expect(
      message(#"[{"hide": true, "dish": "a", "colour": 1}]"#)?.contains(
        "unknown field 'colour' in rule 1") == true)
    #expect(message(#"[{"dish": "a"}]"#)?.contains("rule 1 needs exactly one action") == true)
    #expect(
      message(#"[{"hide": true, "boost": 2, "dish": "a"}]"#)?.contains("it has boost, hide") == true
    )
    #expect(message(#"[{"hide": true}]"#)?.contains("rule 1 needs exactly one of dish") == true)
    #expect(
      message(#"[{"boost": 1, "dish": "a"}]"#)
        == "menudeck.json:1:12: boost: rule 1: factor must be a finite number above 1, got 1.0")
    #expect(
      message(
        """
        [{"hide": true, "dish": "a",
          "valid_from": "2026-12-07", "valid_until": "2026-12-01"}]
        """)
        == "menudeck.json:2:46: valid_until: rule 1: the window ends (2026-12-01) before it starts (2026-12-07)"
    )
    #expect(
      message(#"[{"hide": true, "dish": "a", "weekdays": ["mondy"]}]"#)?.contains(
        "unknown weekday 'mondy' (did you mean 'monday'?)") == true)
    #expect(message(#"[{"pin": 0, "dish": "a"}]"#)?.contains("out of range") == true)
    #expect(
      message(#"[{"hide": true, "dish": "a", "valid_from": "2026-13-01"}]"#)?.contains("not a date")
        == true)
  }

  @Test("catalog errors from the deck builder go to the rule's field, with a did-you-mean")
  func catalogErrors() throws {
    let c = try parse(
      """
      [{"hide": true, "dish": "tiramisu"},
       {"boost": 2, "dish": "tiramsu"}]
      """)
    let catalog = try Catalog(items: [
      MenuItem(id: "tiramisu", name: "Tiramisu", category: "desserts")
    ])
    var rules = DeckRules()
    rules.restaurantRules = c.rules
    do {
      _ = try DeckBuilder(catalog: catalog, rules: rules)
      Issue.record("the unknown dish was accepted")
    } catch {
      #expect(
        "\(c.error(error, catalog: catalog))"
          == "menudeck.json:2:23: dish: rule 2: unknown dish 'tiramsu' (did you mean 'tiramisu'?)")
    }
  }
}
