import DeckCore
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

/// Output of the bundled sample (Config/menudeck.json on Data/) pinned byte for byte. To change a
/// golden on purpose: `MENUDECK_RECORD_GOLDEN=1 swift test --filter MenuDeckCLITests`, then review
/// the diff in git.
@Suite struct CLIGoldenTests {
  static let date = "2026-11-30"
  static let summary = "menudeck: note: 48 decks for 2026-11-30 with 'ease'\n"

  @Test(arguments: ["json", "jsonl", "csv", "table"])
  func deckForTheSampleDate(format: String) {
    let result = CLIRun(["deck", "--date", Self.date, "--format", format])
    #expect(result.code == .success)
    #expect(result.stderr == Self.summary)
    Golden.check(result.stdout, "deck-\(Self.date).\(format)")
  }

  @Test func plainMenudeckRunsTheDeckCommandWithTheConfigFormat() {
    let plain = CLIRun(["--date", Self.date])
    let explicit = CLIRun(["deck", "--date", Self.date, "--format", "json"])
    #expect(plain.code == .success)
    #expect(CLITest.withoutArguments(plain.stdout) == CLITest.withoutArguments(explicit.stdout))
    #expect(
      plain.stdout.hasPrefix(
        "{\"run\":{\"version\":\"\(menudeckVersion)\",\"command\":\"deck\","
          + "\"arguments\":[\"menudeck\",\"--date\",\"\(Self.date)\"],"
      ))
    #expect(plain.stderr == Self.summary)
  }

  @Test func strategiesTable() {
    let result = CLIRun(["strategies"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    Golden.check(result.stdout, "strategies.txt")
  }

  @Test func strategiesJSON() throws {
    let result = CLIRun(["strategies", "--format", "json"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    Golden.check(result.stdout, "strategies.json")
    let root = try #require(try result.json() as? [String: Any])
    let list = try #require(root["strategies"] as? [[String: Any]])
    #expect(
      list.map { $0["identifier"] as? String } == [
        "random", "popularity", "affinity", "thompson", "ucb", "epsilon-greedy", "itemknn", "blend",
        "diversify", "plackett-luce", "als", "ease", "linucb", "lints",
        "veg-first",
      ])
  }

  @Test func validateTheBundledData() {
    let result = CLIRun(["validate"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    Golden.check(result.stdout, "validate.txt")
    #expect(result.stdout.hasSuffix("\nvalid\n"))
  }

  @Test(arguments: [
    ([], "help-root.txt"),
    (["deck"], "help-deck.txt"),
    (["play"], "help-play.txt"),
    (["validate"], "help-validate.txt"),
    (["strategies"], "help-strategies.txt"),
    (["sample"], "help-sample.txt"),
    (["ingest"], "help-ingest.txt"),
    (["merge"], "help-merge.txt"),
    (["simulate"], "help-simulate.txt"),
    (["stats"], "help-stats.txt"),
    (["compare"], "help-compare.txt"),
    (["import"], "help-import.txt"),
    (["tune"], "help-tune.txt"),
  ])
  func help(command: [String], golden: String) {
    let result = CLIRun(command + ["--help"])
    #expect(result.code == .success)
    #expect(result.stderr == "")
    Golden.check(result.stdout, golden)
    for section in ["OVERVIEW: ", "\nUSAGE: menudeck", "\nOPTIONS:\n"] {
      #expect(result.stdout.contains(section), "help of \(command) lacks \(section)")
    }
    if command.isEmpty { #expect(result.stdout.contains("\nSUBCOMMANDS:\n")) }
    // `help <command>` says the same.
    if let name = command.first {
      #expect(CLIRun(["help", name]).stdout == result.stdout)
    }
  }

  @Test func version() {
    let result = CLIRun(["--version"])
    #expect(result.code == .success)
    #expect(result.stdout == "0.1.0\n")
    #expect(result.stdout == menudeckVersion + "\n")
    #expect(result.stderr == "")
  }

  // MARK: - The golden decks obey the deck rules

  /// Checks the JSON deck output of the sample against the inputs, so that a re-recorded golden
  /// cannot quietly pin a broken deck.
  @Test func sampleDecksKeepTheRules() throws {
    let result = CLIRun(["deck", "--date", Self.date, "--format", "json"])
    #expect(result.code == .success)
    let catalog = try CatalogReader.parse(
      CLITest.repoFile("Data/catalog.json"), file: "catalog.json", format: .json)
    let users = try UsersReader.parse(
      CLITest.repoFile("Data/users.json"), file: "users.json", format: .json)
    let profiles = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0) })
    let date = try #require(DeckDate.parse(Self.date))

    let root = try #require(try result.json() as? [String: Any])
    let run = try #require(root["run"] as? [String: Any])
    #expect(run["version"] as? String == menudeckVersion)
    #expect(run["date"] as? String == Self.date)
    #expect(run["strategy"] as? String == "ease")
    #expect(run["seed"] as? Int == 20_261_130)
    #expect(run["size"] as? Int == 10)
    let inputs = try #require(run["inputs"] as? [[String: String]])
    #expect(inputs.map { $0["role"] } == ["config", "catalog", "users", "history"])
    let files = [
      "Config/menudeck.json", "Data/catalog.json", "Data/users.json", "Data/swipes.jsonl",
    ]
    #expect(inputs.map { $0["path"] } == files)
    for (input, file) in zip(inputs, files) {
      #expect(input["sha256"] == SHA256.hex(SHA256.hash(try CLITest.repoFile(file))))
    }

    let decks = try #require(root["decks"] as? [[String: Any]])
    #expect(decks.map { $0["user"] as? String } == users.map(\.id).sorted().map { Optional($0) })
    for deck in decks {
      let user = try #require(deck["user"] as? String)
      let profile = try #require(profiles[user])
      #expect(deck["date"] as? String == Self.date)
      #expect(deck["strategy"] as? String == "ease")
      #expect(deck["seed"] as? Int == 20_261_130)
      let cards = try #require(deck["cards"] as? [[String: Any]])
      #expect(cards.count == 10, "deck of \(user)")
      #expect(deck["warnings"] == nil, "deck of \(user)")
      #expect(cards.map { $0["rank"] as? Int } == (1...10).map { Optional($0) })
      var perCategory: [String: Int] = [:]
      var previous: String?
      var seen = Set<String>()
      for card in cards {
        let id = try #require(card["item"] as? String)
        let index = try #require(catalog.index(of: id), "unknown item \(id)")
        let item = catalog[index]
        #expect(seen.insert(id).inserted, "\(id) twice in the deck of \(user)")
        #expect(card["name"] as? String == item.name)
        #expect(card["category"] as? String == item.category)
        #expect(card["score"] is Double || card["score"] is Int)
        #expect(item.availability.allows(date), "\(id) not served on \(Self.date)")
        for diet in profile.diets {
          #expect(item.diets.contains(diet), "\(id) is not \(diet) (deck of \(user))")
        }
        for allergen in profile.allergens {
          #expect(!item.allergens.contains(allergen), "\(id) has \(allergen) (deck of \(user))")
        }
        #expect(!profile.dislikedCategories.contains(item.category), "\(id) (deck of \(user))")
        #expect(previous != item.category, "two \(item.category) in a row (deck of \(user))")
        previous = item.category
        perCategory[item.category, default: 0] += 1
      }
      #expect(perCategory.values.allSatisfy { $0 <= 3 }, "deck of \(user): \(perCategory)")
    }
  }

  /// The CSV and table goldens hold the same cards as the JSON one.
  @Test func formatsAgree() throws {
    let jsonl = try CLIRun(["deck", "--date", Self.date, "--format", "jsonl"]).jsonLines()
    let csv = CLIRun(["deck", "--date", Self.date, "--format", "csv"])
    var fromJSON: [String] = []
    for deck in jsonl {
      let user = try #require(deck["user"] as? String)
      for card in try #require(deck["cards"] as? [[String: Any]]) {
        fromJSON.append("\(user) \(card["rank"] as? Int ?? 0) \(card["item"] as? String ?? "")")
      }
    }
    let rows = csv.stdoutLines.dropFirst().filter { !$0.isEmpty }
    #expect(csv.stdoutLines.first == "user,date,strategy,seed,rank,item,name,category,score")
    // user, date, strategy, seed, rank, item lead every row and hold no commas or quotes.
    let fromCSV = rows.map { row in
      let f = row.split(separator: ",", maxSplits: 6)
      return "\(f[0]) \(f[4]) \(f[5])"
    }
    #expect(fromCSV == fromJSON)
    #expect(fromJSON.count == 480)
  }
}
