import DeckCore
import DeckIO
import Foundation
import Testing

@testable import DeckSimulation

private let files = SampleData.files()
private let events = SampleData.events()
private let items = SampleData.items
private let users = SampleData.users

private func file(_ name: String) -> String { files.first { $0.name == name }!.contents }

/// A minimal RFC 4180 reader for the tests (the real readers live in DeckIO): records of fields.
private func parseCSV(_ text: String) -> [[String]] {
  var records: [[String]] = []
  var record: [String] = []
  var field = ""
  var quoted = false
  var chars = Array(text.unicodeScalars)[...]
  while let c = chars.popFirst() {
    if quoted {
      if c == "\"" {
        if chars.first == "\"" {
          field.unicodeScalars.append("\"")
          chars.removeFirst()
        } else {
          quoted = false
        }
      } else {
        field.unicodeScalars.append(c)
      }
    } else if c == "\"" {
      quoted = true
    } else if c == "," {
      record.append(field)
      field = ""
    } else if c == "\n" {
      record.append(field)
      records.append(record)
      record = []
      field = ""
    } else {
      field.unicodeScalars.append(c)
    }
  }
  if !field.isEmpty || !record.isEmpty { records.append(record + [field]) }
  return records
}

private func list(_ cell: String) -> [String] {
  cell.isEmpty ? [] : cell.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
}

private func jsonObject(_ text: String) throws -> [String: Any] {
  try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
}

private let meat: Set<String> = ["beef", "pork", "chicken"]
private let seafoodAllergens: Set<String> = [
  "fish", "shrimp", "crab", "squid", "salmon", "mackerel",
]

@Suite("sample data: catalog")
struct SampleCatalogTests {
  @Test("a valid catalog of at least 64 dishes in at least 8 categories")
  func size() throws {
    let catalog = try Catalog(items: items)
    #expect(catalog.count >= 64)
    #expect(catalog.categories.count >= 8)
    #expect(Set(items.map(\.id)).count == items.count)
  }

  @Test("ids are ASCII slugs; images are named after them")
  func ids() {
    for item in items {
      #expect(
        item.id.utf8.allSatisfy {
          (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D
        }, "\(item.id)")
      if let image = item.image { #expect(image == item.id + ".jpg") }
    }
    #expect(items.contains { $0.image == nil })
  }

  @Test("prices are whole yen between 180 and 1680; one dish is market price")
  func prices() {
    for item in items {
      if let price = item.price {
        #expect(price == price.rounded() && (180...1680).contains(price), "\(item.id)")
      }
    }
    #expect(items.filter { $0.price == nil }.map(\.id) == ["sashimi-moriawase"])
  }

  @Test(
    "diet labels hold: vegan is vegetarian, vegetarian is pescatarian, gluten-free has no wheat")
  func diets() {
    let known: Set<String> = ["vegetarian", "vegan", "pescatarian", "gluten-free", "halal"]
    for item in items {
      let diets = Set(item.diets)
      #expect(diets.isSubset(of: known), "\(item.id)")
      if diets.contains("vegan") {
        #expect(diets.contains("vegetarian"), "\(item.id)")
        #expect(!item.allergens.contains { ["egg", "milk", "gelatin"].contains($0) }, "\(item.id)")
      }
      if diets.contains("vegetarian") {
        #expect(diets.contains("pescatarian"), "\(item.id)")
        #expect(seafoodAllergens.isDisjoint(with: item.allergens), "\(item.id)")
        #expect(seafoodAllergens.isDisjoint(with: item.tags), "\(item.id)")
      }
      if diets.contains("pescatarian") { #expect(meat.isDisjoint(with: item.tags), "\(item.id)") }
      if diets.contains("halal") { #expect(!item.tags.contains("pork"), "\(item.id)") }
      if diets.contains("gluten-free") { #expect(!item.allergens.contains("wheat"), "\(item.id)") }
    }
  }

  @Test("some names carry a comma and a double quote")
  func trickyNames() {
    let tricky = items.filter { $0.name.contains(",") && $0.name.contains("\"") }
    #expect(tricky.count >= 3)
    #expect(tricky.contains { $0.name == "Chef's \"special\" curry, extra hot" })
  }

  @Test("availability: weekday dishes, seasonal ranges, and boundaries around the deck date")
  func availability() {
    let date = SampleData.deckDate
    #expect(date.weekday == .monday)
    #expect(items.filter { $0.availability.weekdays != nil }.count >= 5)
    #expect(items.filter { $0.availability.from != nil }.count >= 5)
    func item(_ id: String) -> MenuItem { items.first { $0.id == id }! }
    // Last day of the mushroom rice is the deck date; the sake-lees soup starts the day after.
    #expect(item("kinoko-gohan").availability.allows(date))
    #expect(!item("kinoko-gohan").availability.allows(date.adding(days: 1)))
    #expect(!item("kasujiru").availability.allows(date))
    #expect(item("kasujiru").availability.allows(date.adding(days: 1)))
    #expect(item("oden").availability.allows(date))
    #expect(!item("hiyashi-chuka").availability.allows(date))
    #expect(!item("kaigun-curry").availability.allows(date))
    #expect(item("kaigun-curry").availability.allows(date.adding(days: 4)))
    // Most of the menu is served on the deck date, across every category.
    let served = items.filter { $0.availability.allows(date) }
    #expect(served.count * 10 >= items.count * 8)
    #expect(Set(served.map(\.category)) == Set(items.map(\.category)))
  }

  @Test("catalog.json describes exactly the table")
  func jsonMatches() throws {
    let root = try jsonObject(file("catalog.json"))
    #expect(Array(root.keys) == ["items"])
    let rows = root["items"] as! [[String: Any]]
    #expect(rows.count == items.count)
    for (row, item) in zip(rows, items) {
      #expect(row["id"] as? String == item.id)
      #expect(row["name"] as? String == item.name)
      #expect(row["category"] as? String == item.category)
      #expect((row["tags"] as? [String] ?? []) == item.tags)
      #expect((row["price"] as? NSNumber)?.doubleValue == item.price)
      #expect(row["image"] as? String == item.image)
      #expect((row["allergens"] as? [String] ?? []) == item.allergens)
      #expect((row["diets"] as? [String] ?? []) == item.diets)
      let available = row["available"] as? [String: Any]
      let a = item.availability
      #expect(available == nil ? a == .always : a != .always, "\(item.id)")
      #expect(
        (available?["weekdays"] as? [String]).map { Set($0.compactMap(Weekday.init(name:))) }
          == a.weekdays)
      #expect((available?["from"] as? String).flatMap(DeckDate.parse) == a.from)
      #expect((available?["until"] as? String).flatMap(DeckDate.parse) == a.until)
      let allowed: Set<String> = [
        "id", "name", "category", "tags", "price", "image", "allergens", "diets", "available",
      ]
      #expect(Set(row.keys).isSubset(of: allowed))
    }
  }

  @Test("catalog.csv describes the same items as catalog.json")
  func csvMatches() throws {
    let records = parseCSV(file("catalog.csv"))
    #expect(records.first == SampleData.catalogCSVHeader.split(separator: ",").map(String.init))
    let rows = records.dropFirst()
    #expect(rows.count == items.count)
    for (cells, item) in zip(rows, items) {
      #expect(cells.count == 11)
      #expect(cells[0] == item.id)
      #expect(cells[1] == item.name)
      #expect(cells[2] == item.category)
      #expect(list(cells[3]) == item.tags)
      #expect((cells[4].isEmpty ? nil : Double(cells[4])) == item.price)
      #expect((cells[5].isEmpty ? nil : cells[5]) == item.image)
      #expect(list(cells[6]) == item.allergens)
      #expect(list(cells[7]) == item.diets)
      let weekdays = cells[8].isEmpty ? nil : Set(list(cells[8]).compactMap(Weekday.init(name:)))
      #expect(weekdays == item.availability.weekdays)
      #expect(DeckDate.parse(cells[9]) == item.availability.from)
      #expect(DeckDate.parse(cells[10]) == item.availability.until)
    }
  }

  @Test("the CSV row of the tricky curry is quoted exactly once, quotes doubled")
  func csvQuoting() {
    let lines = file("catalog.csv").split(separator: "\n").map(String.init)
    #expect(
      lines.contains(
        #"chefs-special-curry,"Chef's ""special"" curry, extra hot",curry,beef|spicy|hearty,1280,chefs-special-curry.jpg,wheat|milk|soy|sesame|peanut,,,,"#
      ))
    #expect(
      lines.contains(
        #"kaigun-curry,"Kaigun curry, Friday navy style (海軍カレー)",curry,beef|classic|hearty,980,kaigun-curry.jpg,wheat|milk|soy,,fri,,"#
      ))
    #expect(
      lines.contains(
        #"sashimi-moriawase,"Sashimi moriawase, market price (刺身盛り合わせ)",teishoku,fish|seafood|raw|premium,,sashimi-moriawase.jpg,fish|salmon|squid|shrimp|wheat|soy,pescatarian,tue|fri|sat,,"#
      ))
    #expect(
      lines.contains(
        "nikujaga,Nikujaga (肉じゃが),teishoku,beef|simmered|classic,880,nikujaga.jpg,wheat|soy,,,,"))
    #expect(file("catalog.csv").hasSuffix("\n") && !file("catalog.csv").contains("\r"))
  }

  @Test("catalog.json writes the tricky curry with escaped quotes and the weekday object")
  func jsonLines() {
    let text = file("catalog.json")
    #expect(text.hasPrefix("{\n  \"items\": [\n    {\"id\": \"oyakodon\""))
    #expect(
      text.contains(
        #"{"id": "chefs-special-curry", "name": "Chef's \"special\" curry, extra hot", "category": "curry", "tags": ["beef", "spicy", "hearty"], "price": 1280, "image": "chefs-special-curry.jpg", "allergens": ["wheat", "milk", "soy", "sesame", "peanut"]},"#
      ))
    #expect(
      text.contains(
        #""diets": ["pescatarian"], "available": {"weekdays": ["tue", "fri", "sat"]}},"#))
    #expect(text.contains(#""available": {"from": "2026-09-15", "until": "2026-11-30"}}"#))
  }
}

@Suite("sample data: users")
struct SampleUsersTests {
  @Test("at least 24 users with unique ids, some with diets, allergens and dislikes")
  func usersTable() {
    #expect(SampleData.users.count >= 24)
    #expect(Set(SampleData.users.map(\.id)).count == SampleData.users.count)
    let diets = Set(SampleData.users.flatMap(\.diets))
    #expect(diets == ["vegetarian", "vegan", "gluten-free", "pescatarian"])
    let allergens = Set(SampleData.users.flatMap(\.allergens))
    #expect(allergens.isSuperset(of: ["buckwheat", "shrimp", "egg", "milk", "wheat"]))
    let categories = Set(items.map(\.category))
    for user in SampleData.users {
      #expect(Set(user.dislikedCategories).isSubset(of: categories), "\(user.id)")
    }
    #expect(SampleData.users.filter { !$0.dislikedCategories.isEmpty }.count >= 4)
  }

  @Test("users.json and users.csv hold the same users")
  func formatsAgree() throws {
    let rows = try jsonObject(file("users.json"))["users"] as! [[String: Any]]
    let records = parseCSV(file("users.csv"))
    #expect(records.first == ["id", "diets", "allergens", "disliked_categories"])
    #expect(rows.count == users.count && records.count == users.count + 1)
    for ((row, cells), user) in zip(zip(rows, records.dropFirst()), users) {
      #expect(row["id"] as? String == user.id && cells[0] == user.id)
      #expect((row["diets"] as? [String] ?? []) == user.diets && list(cells[1]) == user.diets)
      #expect(
        (row["allergens"] as? [String] ?? []) == user.allergens
          && list(cells[2]) == user.allergens)
      #expect(
        (row["disliked_categories"] as? [String] ?? []) == user.dislikedCategories
          && list(cells[3]) == user.dislikedCategories)
    }
    #expect(file("users.csv").contains("\nu04,gluten-free,wheat,\n"))
    #expect(file("users.csv").contains("\nu18,,,world|dessert\n"))
  }
}

@Suite("sample data: swipe log")
struct SampleSwipeLogTests {
  @Test("a few thousand events over the 14 days before the deck date, sorted by time")
  func window() {
    #expect((3000...6000).contains(events.count))
    let first = DeckDate.parse("2026-11-16")!
    let last = DeckDate.parse("2026-11-29")!
    #expect(SampleData.firstLogDay == first && SampleData.lastLogDay == last)
    #expect(events.allSatisfy { $0.day >= first && $0.day <= last && $0.deck == $0.day })
    #expect(Set(events.map(\.day)).count == 14)
    #expect(zip(events, events.dropFirst()).allSatisfy { $0.at <= $1.at })
    #expect(events.allSatisfy { (1...SampleData.loggedDeckSize).contains($0.position!) })
    // Dinner time, in the diners' own clock.
    #expect(events.allSatisfy { (16 * 3600...22 * 3600).contains($0.at % 86_400) })
    #expect(Set(events.map(\.user)) == Set(users.map(\.id)))
  }

  @Test("no event shows a diner a dish they may not have, or one not served that day")
  func respectsDinersAndAvailability() {
    let byID = Dictionary(uniqueKeysWithValues: items.map { ($0.id, $0) })
    let userByID = Dictionary(uniqueKeysWithValues: users.map { ($0.id, $0) })
    for e in events {
      guard let item = byID[e.item], let user = userByID[e.user] else {
        Issue.record("unknown user or item in \(e)")
        continue
      }
      #expect(item.availability.allows(e.deck!), "\(e.item) on \(e.deck!)")
      #expect(user.diets.allSatisfy(item.diets.contains), "\(e.user) \(e.item)")
      #expect(!user.allergens.contains(where: item.allergens.contains), "\(e.user) \(e.item)")
      #expect(!user.dislikedCategories.contains(item.category), "\(e.user) \(e.item)")
    }
  }

  @Test("every line is a swipe or a drag; about one in twenty is a drag; a few drags hesitate")
  func drags() {
    #expect(events.allSatisfy { ($0.swipe == nil) != ($0.drag == nil) })
    let drags = events.filter { $0.drag != nil }
    #expect(drags.count * 100 >= events.count * 3 && drags.count * 100 <= events.count * 8)
    let hesitations = drags.filter { $0.committed == nil }
    #expect(hesitations.count >= 5 && hesitations.count * 4 < drags.count)
    for d in drags {
      let ratio = abs(d.drag!.dx) / d.drag!.width!
      #expect(d.committed == nil ? ratio <= 0.45 : ratio > 0.45)
    }
  }

  @Test("sessions: one card per position, hesitations then a decision, most end at the first pick")
  func sessions() {
    var sessions: [String: [LogEvent]] = [:]
    for e in events { sessions[e.user + " " + e.deck!.description, default: []].append(e) }
    var picked = 0
    var endAtPick = 0
    var browsed = 0
    for (key, session) in sessions {
      let committed = session.filter { $0.committed != nil }
      // Positions 1, 2, 3 ... with no gaps, each card decided once.
      #expect(committed.map { $0.position! } == Array(1...committed.count), "\(key)")
      #expect(Set(committed.map(\.item)).count == committed.count, "\(key)")
      for h in session where h.committed == nil {
        #expect(
          committed.contains { $0.position == h.position && $0.item == h.item && $0.at > h.at })
      }
      let rights = committed.filter { $0.committed == .right }
      if !rights.isEmpty { picked += 1 }
      if rights.count == 1 && committed.last?.committed == .right { endAtPick += 1 }
      if rights.count > 1 || (rights.first.map { $0.position! < committed.count } ?? false) {
        browsed += 1
      }
    }
    #expect(sessions.count >= 300)
    // Most sessions pick a dish, and nearly all that do stop at the first pick.
    #expect(picked * 2 > sessions.count)
    #expect(endAtPick * 10 >= picked * 8)
    #expect(browsed > 0 && browsed * 5 < sessions.count)
    let rights = events.filter { $0.committed == .right }.count
    #expect(rights * 100 >= events.count * 8 && rights * 100 <= events.count * 30)
  }

  @Test("swipes.jsonl: one object per event, keys in order, same values as the events")
  func jsonLines() throws {
    let lines = file("swipes.jsonl").split(separator: "\n", omittingEmptySubsequences: false)
    #expect(lines.last == "")
    #expect(lines.count == events.count + 1)
    for (line, e) in zip(lines, events) {
      let object = try jsonObject(String(line))
      #expect(object["user"] as? String == e.user && object["item"] as? String == e.item)
      #expect(object["swipe"] as? String == e.swipe?.name)
      #expect((object["dx"] as? NSNumber)?.doubleValue == e.drag?.dx)
      #expect((object["width"] as? NSNumber)?.intValue == e.drag?.width.map { Int($0) })
      #expect(object["at"] as? String == SampleData.timestamp(e.at))
      #expect(object["position"] as? Int == e.position)
      #expect(object["deck"] as? String == e.deck!.description)
      #expect(!line.contains(" "))
      let keys =
        e.swipe != nil
        ? ["user", "item", "swipe", "at", "position", "deck"]
        : ["user", "item", "dx", "width", "at", "position", "deck"]
      let offsets = keys.map { line.range(of: "\"\($0)\":")!.lowerBound }
      #expect(offsets == offsets.sorted() && object.count == keys.count)
    }
  }

  @Test("swipes.csv carries the same log as swipes.jsonl")
  func csv() {
    let records = parseCSV(file("swipes.csv"))
    #expect(records.first == ["user", "item", "swipe", "at", "position", "deck", "dx", "width"])
    #expect(records.count == events.count + 1)
    for (cells, e) in zip(records.dropFirst(), events) {
      #expect(
        cells == [
          e.user, e.item, e.swipe?.name ?? "", SampleData.timestamp(e.at), String(e.position!),
          e.deck!.description, e.drag.map { SampleData.tenths(of: $0.dx) } ?? "",
          e.drag.map { String(Int($0.width!)) } ?? "",
        ])
    }
  }

  @Test("every diner gets a full deck on the deck date under the default rules and this history")
  func decksOnTheDeckDate() throws {
    let catalog = try Catalog(items: items)
    var history = HistoryBuilder(itemCount: catalog.count, cutoff: SampleData.deckDate)
    for e in events {
      guard let direction = e.committed else { continue }
      let slot = history.userSlot(e.user)
      history.add(
        user: slot, item: catalog.index(of: e.item)!, swipe: direction,
        day: e.day.daysSinceEpoch, position: Int32(e.position!))
    }
    let built = try history.build()
    let builder = try DeckBuilder(catalog: catalog, rules: DeckRules())
    for user in users {
      let candidates = builder.candidates(
        for: user, history: built.users[user.id], date: SampleData.deckDate)
      let deck = builder.assemble(
        user: user.id, date: SampleData.deckDate, candidates: candidates,
        scores: candidates.items.map { _ in 0 })
      #expect(
        deck.cards.count == 10, "\(user.id): \(deck.shortfall.map(String.init(describing:)) ?? "")")
    }
  }
}

@Suite("sample data: simulation helpers")
struct SampleSimulationTests {
  @Test(
    "the arithmetic logistic matches 1 / (1 + e^-x) to 1e-9 and clamps beyond 8",
    arguments: [-10.0, -8, -4, -2.8, -1, -0.5, 0, 0.5, 1, 2, 4, 8, 10])
  func logistic(x: Double) {
    let exact = 1 / (1 + Foundation.exp(-min(max(x, -8), 8)))
    #expect(abs(SampleData.logistic(x) - exact) <= 1e-9 * exact)
  }

  @Test("the logistic is exactly one half at zero and symmetric")
  func logisticSymmetry() {
    #expect(SampleData.logistic(0) == 0.5)
    #expect(abs(SampleData.logistic(2) + SampleData.logistic(-2) - 1) < 1e-9)
  }

  @Test("allows checks availability, every diet, every allergen and disliked categories")
  func allows() {
    let monday = SampleData.deckDate
    let friday = monday.adding(days: -3)
    let item = MenuItem(
      id: "x", name: "X", category: "curry", allergens: ["wheat", "milk"],
      diets: ["vegetarian", "pescatarian"], availability: Availability(weekdays: [.friday]))
    #expect(SampleData.allows(UserProfile(id: "a"), item, on: friday))
    #expect(!SampleData.allows(UserProfile(id: "a"), item, on: monday))
    #expect(
      SampleData.allows(
        UserProfile(id: "a", diets: ["vegetarian", "pescatarian"]), item, on: friday))
    #expect(
      !SampleData.allows(UserProfile(id: "a", diets: ["vegetarian", "vegan"]), item, on: friday))
    #expect(SampleData.allows(UserProfile(id: "a", allergens: ["egg"]), item, on: friday))
    #expect(!SampleData.allows(UserProfile(id: "a", allergens: ["egg", "milk"]), item, on: friday))
    #expect(SampleData.allows(UserProfile(id: "a", dislikedCategories: ["nabe"]), item, on: friday))
    #expect(
      !SampleData.allows(UserProfile(id: "a", dislikedCategories: ["curry"]), item, on: friday))
  }

  @Test("the README's figures are those of the files and it names both ways to regenerate")
  func readme() {
    let readme = file("README.md")
    let rights = events.filter { $0.committed == .right }.count
    let lefts = events.filter { $0.committed == .left }.count
    #expect(
      readme.contains("| `catalog.json` | the menu: \(items.count) dishes in 11 categories |"))
    #expect(readme.contains("| `users.json` | \(users.count) diners |"))
    #expect(
      readme.contains("| `swipes.jsonl` | the swipe log, \(events.count) lines (JSON Lines) |"))
    #expect(readme.contains("\(rights) right swipes (picks) and \(lefts) left swipes."))
    #expect(readme.contains("swift run menudeck sample --out Data"))
    #expect(readme.contains("MENUDECK_WRITE_SAMPLE=1 swift test --filter DeckSimulationTests"))
    // Its examples are real lines of the files.
    let jsonl = file("swipes.jsonl")
    let example = readme.components(separatedBy: "```json\n")[2].components(separatedBy: "\n```")[0]
    for line in example.split(separator: "\n") { #expect(jsonl.contains(line + "\n")) }
  }
}

/// A line of the sample log as these tests read it: the direction it commits to under the
/// food-menu rule, and its local day.
extension LogEvent {
  fileprivate var committed: SwipeDirection? { SampleData.committed(self) }
  fileprivate var day: DeckDate { DeckDate(daysSinceEpoch: Int32(localDay(seconds: at))) }
}
