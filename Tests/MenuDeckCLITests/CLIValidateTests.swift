import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck validate`: every problem at once, counts when all is well, `--strict`.
@Suite struct CLIValidateTests {
  static let catalog = """
    [
      {"id": "tofu", "name": "Tofu", "category": "sides", "allergens": ["peanut", "soy"]},
      {"id": "salad", "name": "Salad", "category": "salad", "allergens": ["sesame"], "diets": ["vegan"]}
    ]
    """

  static func fixture(users: String, history: [String]) throws -> TempDir {
    let dir = try TempDir()
    try dir.write("catalog.json", catalog)
    try dir.write("users.json", users)
    try dir.write("swipes.jsonl", history.map { $0 + "\n" }.joined())
    try dir.write(
      "config.json",
      #"{"catalog": "catalog.json", "users": "users.json", "history": ["swipes.jsonl"]}"#)
    return dir
  }

  static let good = #"{"user":"u1","item":"tofu","swipe":"right","at":"2026-11-20T12:00:00Z"}"#

  @Test func reportsEveryBadEventLine() throws {
    let dir = try Self.fixture(
      users: #"{"users": [{"id": "u1"}]}"#,
      history: [
        Self.good,
        #"{"user":"u1","item":"tofu","swipe":"rigt","at":"2026-11-20T12:00:00Z"}"#,
        Self.good,
        #"{"user":"u1","item":"tofu","swipe":"left"}"#,
        #"{"user":"u1","item":"salad","swipe":"left","at":"2026-11-31T12:00:00Z"}"#,
        "not json",
        Self.good,
      ])
    let result = dir.run(["validate", "--config", dir.file("config.json")])
    #expect(result.code == .dataError)
    let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("menudeck: error: ") }
    let log = dir.file("swipes.jsonl")
    #expect(
      errors.map { $0.split(separator: ":").prefix(4).joined(separator: ":") } == [
        "menudeck: error: \(log):2", "menudeck: error: \(log):4", "menudeck: error: \(log):5",
        "menudeck: error: \(log):6",
      ])
    #expect(errors.count == result.stderr.split(separator: "\n").count)
    #expect(
      result.stdout == """
        config   \(dir.file("config.json"))  ok
        catalog  \(dir.file("catalog.json"))  2 items, 2 categories, 0 tags
        users    \(dir.file("users.json"))  1 user (0 with diets, 0 with allergens)
        strategy ease                        ok (ease)
        history  \(log)  7 lines, 3 swipes (3 right, 0 left), 4 bad lines
        invalid: 4 errors, 0 warnings

        """)
  }

  @Test func badPrefixPropensitiesAreBadLines() throws {
    let event = #"{"user":"u1","item":"tofu","swipe":"right","at":"2026-11-20T12:00:00Z","#
    let dir = try Self.fixture(
      users: #"{"users": [{"id": "u1"}]}"#,
      history: [
        event + #""propensity":0.5,"prefix_propensity":0.25}"#,
        event + #""propensity":0.5,"prefix_propensity":1.5}"#,
        event + #""prefix_propensity":"half"}"#,
      ])
    let result = dir.run(["validate", "--config", dir.file("config.json")])
    #expect(result.code == .dataError)
    let log = dir.file("swipes.jsonl")
    #expect(
      result.stderr == """
        menudeck: error: \(log):2:109: prefix_propensity: '1.5' is out of range: give the \
        probability the ranking had of showing the deck's cards from position 1 to this one, in \
        their order, above 0 and up to 1
        menudeck: error: \(log):3:92: prefix_propensity: expected a number, found '"half"'; give a \
        number in (0, 1]

        """)
  }

  @Test func collectsErrorsOfSeveralInputs() throws {
    let dir = try Self.fixture(
      users: #"{"users": [{"id": "u1"}, {"id": "u1"}]}"#, history: ["{", Self.good])
    let result = dir.run(["validate", "--config", dir.file("config.json")])
    #expect(result.code == .dataError)
    #expect(
      result.stderr.contains(
        "menudeck: error: \(dir.file("users.json")):1:33: duplicate user id 'u1'"))
    #expect(result.stderr.contains("menudeck: error: \(dir.file("swipes.jsonl")):1:2: "))
    #expect(result.stdout.contains("users    \(dir.file("users.json"))  invalid\n"))
    #expect(result.stdout.hasSuffix("invalid: 2 errors, 0 warnings\n"))
  }

  @Test func missingInputIs66() throws {
    let dir = try Self.fixture(users: #"{"users": []}"#, history: [])
    try FileManager.default.removeItem(atPath: dir.path + "/swipes.jsonl")
    let result = dir.run(["validate", "--config", dir.file("config.json")])
    #expect(result.code == .noInput)
    #expect(
      result.stderr
        == "menudeck: error: \(dir.file("swipes.jsonl")): no such file (the swipe log); check the path or the config\n"
    )
  }

  @Test func bundledDataIsValid() {
    let result = CLIRun(["validate"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    #expect(result.stdout.contains("catalog  Data/catalog.json           109 items, 11 categories"))
    #expect(result.stdout.contains("users    Data/users.json             48 users"))
    #expect(
      result.stdout.contains("3411 lines, 3379 swipes (353 right, 3026 left), 32 hesitations"))
    #expect(CLIRun(["validate", "--strict"]).code == .success)
  }

  @Test func strictFailsOnAnAllergenTypo() throws {
    let dir = try Self.fixture(
      users:
        #"{"users": [{"id": "u1", "allergens": ["peanuts"]}, {"id": "u2", "allergens": ["soy"]}]}"#,
      history: [Self.good])
    let warning =
      "menudeck: warning: user 'u1' avoids allergen 'peanuts', which no dish lists (did you mean "
      + "'peanut'?); check the spelling\n"
    let strict = dir.run(["validate", "--config", dir.file("config.json"), "--strict"])
    #expect(strict.code == .failure)
    #expect(strict.code.rawValue == 1)
    #expect(strict.stderr == warning)
    #expect(
      strict.stdout.hasSuffix(
        "history  \(dir.file("swipes.jsonl"))  1 line, 1 swipe (1 right, 0 left)\n"
          + "valid with 1 warning\n"))

    // Without --strict the warning is shown and the check passes.
    let lenient = dir.run(["validate", "--config", dir.file("config.json")])
    #expect(lenient.code == .success)
    #expect(lenient.stderr == warning)
  }

  @Test func dietNoDishSatisfiesIsAWarning() throws {
    let dir = try Self.fixture(
      users: #"{"users": [{"id": "u1", "diets": ["vegetarian"]}]}"#, history: [])
    let result = dir.run(["validate", "--config", dir.file("config.json"), "--strict"])
    #expect(result.code == .failure)
    #expect(
      result.stderr
        == "menudeck: warning: user 'u1' follows diet 'vegetarian', which no dish satisfies; their decks "
        + "will be empty\n")
  }

  @Test func validateReadsStandardInput() throws {
    let dir = try Self.fixture(users: #"{"users": []}"#, history: [])
    let result = dir.run(
      ["validate", "--config", dir.file("config.json"), "--history", "-"],
      stdin: Array((Self.good + "\n" + "{\n").utf8))
    #expect(result.code == .dataError)
    #expect(result.stderr.hasPrefix("menudeck: error: <stdin>:2:"))
    #expect(result.stdout.contains("history  <stdin>                     2 lines, 1 swipe"))
  }
}
