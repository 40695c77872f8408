import DeckCore
import DeckIO
import Testing

@testable import DeckSimulation

private func parse(_ text: String) throws(DeckIOError) -> SimulationConfig {
  let root = try JSONParser.parse(text, file: "menudeck.json")
  return try SimulationConfig.parse(root["simulation"]!, file: "menudeck.json")
}

/// The message of the error `text` gives.
private func failure(_ text: String) -> String {
  do {
    _ = try parse(text)
    return "(no error)"
  } catch {
    return error.description
  }
}

@Suite("simulation config")
struct SimulationConfigTests {
  @Test("an empty object keeps every default")
  func defaults() throws {
    let c = try parse(#"{"simulation": {}}"#)
    #expect(c == SimulationConfig())
    #expect(c.openProbability == 0.7)
    #expect(c.mode == .pick)
    #expect(c.patience == 6)
    #expect(c.satiationHalfLifeDays == 2)
    #expect(c.temperature == 1)
    #expect(c.dragRule == .foodMenu)
  }

  @Test("every key is read")
  func everyKey() throws {
    let c = try parse(
      """
      {"simulation": {
        "open_probability": 1, "mode": "all", "vegetarian_share": 0, "allergy_share": 0.5,
        "pickiness_mean": -0.5, "pickiness_spread": 0, "dish_appeal_spread": 0.25,
        "feature_appeal_spread": 0.75, "category_taste_spread": 2, "tag_taste_spread": 0, "price_sensitivity_mean": 0,
        "price_sensitivity_spread": 1.5, "satiation_strength": 0, "satiation_half_life_days": 0,
        "attention_decay": 0.5, "patience": null, "give_up_probability": 1, "temperature": 0.25,
        "session_start_minute": 0, "session_window_minutes": 1380, "drags": true,
        "card_width": 343.5, "hesitation_probability": 0.125
      }}
      """)
    var expected = SimulationConfig()
    expected.openProbability = 1
    expected.mode = .all
    expected.vegetarianShare = 0
    expected.allergyShare = 0.5
    expected.pickinessMean = -0.5
    expected.pickinessSpread = 0
    expected.dishAppealSpread = 0.25
    expected.featureAppealSpread = 0.75
    expected.categoryTasteSpread = 2
    expected.tagTasteSpread = 0
    expected.priceSensitivityMean = 0
    expected.priceSensitivitySpread = 1.5
    expected.satiationStrength = 0
    expected.satiationHalfLifeDays = 0
    expected.attentionDecay = 0.5
    expected.patience = nil
    expected.giveUpProbability = 1
    expected.temperature = 0.25
    expected.sessionStartMinute = 0
    expected.sessionWindowMinutes = 1380
    expected.drags = true
    expected.cardWidth = 343.5
    expected.hesitationProbability = 0.125
    #expect(c == expected)
    #expect(SimulationConfig.keys.count == 23)
    #expect(Set(SimulationConfig.keys).count == SimulationConfig.keys.count)
  }

  @Test("an unknown key names the key, its place and the likely key")
  func unknownKey() {
    #expect(
      failure("{\"simulation\": {\n  \"patiense\": 3}}")
        == "menudeck.json:2:3: unknown field 'patiense' in 'simulation' (did you mean 'patience'?); "
        + "known fields: " + SimulationConfig.keys.joined(separator: ", "))
  }

  @Test(
    "impossible values name the key and file:line:column",
    arguments: [
      (
        #""open_probability": 1.5"#,
        "'simulation.open_probability': '1.5' is out of range: give a probability from 0 to 1"
      ),
      (#""open_probability": -0"#, "(no error)"),
      (
        #""give_up_probability": -0.01"#,
        "'simulation.give_up_probability': '-0.01' is out of range: give a probability from 0 to 1"
      ),
      (
        #""vegetarian_share": 1.0000001"#,
        "'simulation.vegetarian_share': '1.0000001' is out of range: give a probability from 0 to 1"
      ),
      (
        #""satiation_half_life_days": -1"#,
        "'simulation.satiation_half_life_days': '-1' is out of range: give a number 0 or more"
      ),
      (
        #""category_taste_spread": -0.5"#,
        "'simulation.category_taste_spread': '-0.5' is out of range: give a number 0 or more"
      ),
      (
        #""temperature": 0"#,
        "'simulation.temperature': '0' is out of range: give a number 0.001 or more"
      ),
      (
        #""temperature": 1e-300"#,
        "'simulation.temperature': '1e-300' is out of range: give a number 0.001 or more"
      ),
      (
        #""pickiness_mean": 1e308"#,
        "'simulation.pickiness_mean': '1e308' is out of range: give a number from -1000000 to 1000000"
      ),
      (
        #""card_width": 0"#,
        "'simulation.card_width': '0' is out of range: give a number of points above 0"
      ),
      (
        #""patience": 0"#,
        "'simulation.patience': '0' is out of range: give a whole number from 1 to 2147483647"
      ),
      // A whole number in exponent form is one, shown as the file writes it.
      (
        #""patience": 1e30"#,
        "'simulation.patience': '1e30' is out of range: give a whole number from 1 to 2147483647"
      ),
      (#""patience": 1e1"#, "(no error)"),
      (
        #""patience": 2.5"#,
        "'simulation.patience': '2.5' is not a whole number; give a whole number from 1 to 2147483647"
      ),
      (
        #""session_start_minute": 1381"#,
        "'simulation.session_start_minute': '1381' is out of range: give a whole number from 0 to 1380"
      ),
      (#""temperature": "hot""#, "expected a number for 'simulation.temperature', got a string"),
      (#""drags": 1"#, "expected true or false for 'simulation.drags', got a number"),
      (
        #""mode": "picks""#,
        "'simulation.mode' is 'picks' (did you mean 'pick'?); use 'pick' (the first right swipe ends the session) or 'all' (swipe through the whole deck)"
      ),
    ])
  func impossibleValues(member: String, message: String) {
    let text = "{\n\"simulation\": {\"allergy_share\": 0.15,\n    \(member)}}"
    let column = 5 + member.distance(from: member.startIndex, to: member.firstIndex(of: ":")!) + 2
    let expected = message == "(no error)" ? message : "menudeck.json:3:\(column): \(message)"
    #expect(failure(text) == expected)
  }

  @Test("whole numbers in any form JSON writes are read exactly")
  func wholeNumbersInExponentForm() throws {
    let config = try parse(
      #"{"simulation": {"patience": 1.5e1, "session_start_minute": 6E+1, "session_window_minutes": 300e-1}}"#
    )
    #expect(config.patience == 15)
    #expect(config.sessionStartMinute == 60)
    #expect(config.sessionWindowMinutes == 30)
    #expect(
      failure(#"{"simulation": {"session_start_minute": 1.25e1}}"#)
        == "menudeck.json:1:41: 'simulation.session_start_minute': '1.25e1' is not a whole "
        + "number; give a whole number from 0 to 1380")
  }

  @Test("a session window past 23:00 is refused at the window")
  func window() {
    #expect(
      failure(
        "{\"simulation\": {\"session_start_minute\": 1000,\n \"session_window_minutes\": 381}}")
        == "menudeck.json:2:28: 'simulation.session_start_minute' + 'simulation.session_window_minutes' is 1381; keep it "
        + "at most 1380 (23:00) so that sessions end on the day of their deck")
    #expect(
      failure("{\"simulation\": {\"session_start_minute\": 1000, \"session_window_minutes\": 380}}")
        == "(no error)")
  }

  @Test("the simulation settings must be an object")
  func notAnObject() {
    #expect(
      failure(#"{"simulation": [1]}"#)
        == "menudeck.json:1:16: expected an object for 'simulation', got an array")
  }
}
