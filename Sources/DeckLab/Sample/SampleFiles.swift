import DeckBase
import DeckCore
import DeckIO
import Foundation

/// One file of the sample data set.
package struct SampleFile: Sendable, Equatable {
  package var name: String
  package var contents: String

  package init(name: String, contents: String) {
    self.name = name
    self.contents = contents
  }
}

extension SampleData {
  /// The files of the data set, in a fixed order: catalog (JSON, CSV), users (JSON, CSV), swipe
  /// log (JSON Lines, CSV) and a README describing them.
  package static func files(seed: UInt64 = defaultSeed) -> [SampleFile] {
    let events = events(seed: seed)
    return [
      SampleFile(name: "catalog.json", contents: catalogJSON(items)),
      SampleFile(name: "catalog.csv", contents: catalogCSV(items)),
      SampleFile(name: "users.json", contents: usersJSON(users)),
      SampleFile(name: "users.csv", contents: usersCSV(users)),
      SampleFile(name: "swipes.jsonl", contents: eventsJSONLines(events)),
      SampleFile(name: "swipes.csv", contents: eventsCSV(events)),
      SampleFile(name: "README.md", contents: readme(seed: seed, events: events)),
    ]
  }

  /// Writes `files(seed:)` into `directory` (created when missing; "" is the current
  /// directory), each file atomically (temporary file and rename), and returns the paths written.
  @discardableResult
  package static func write(to directory: String, seed: UInt64 = defaultSeed) throws(DeckIOError)
    -> [String]
  {
    let dir = directory.isEmpty ? "." : directory
    do {
      try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    } catch {
      throw .io(path: dir, message: "cannot create the directory; check the path and permissions")
    }
    var written: [String] = []
    for file in files(seed: seed) {
      let path = URL(fileURLWithPath: dir).appendingPathComponent(file.name).path
      try replaceFile(at: path, with: Array(file.contents.utf8))
      written.append(path)
    }
    return written
  }
}

// MARK: - Renderings

extension SampleData {
  static let catalogCSVHeader =
    "id,name,category,tags,price,image,allergens,diets,weekdays,available_from,available_until"
  static let usersCSVHeader = "id,diets,allergens,disliked_categories"
  static let eventsCSVHeader = "user,item,swipe,at,position,deck,dx,width"

  /// `{"items": [...]}` with one item per line; optional keys and empty lists are left out.
  static func catalogJSON(_ items: [MenuItem]) -> String {
    var out = "{\n  \"items\": [\n"
    for (n, item) in items.enumerated() {
      out += "    " + catalogJSONObject(item) + (n + 1 < items.count ? ",\n" : "\n")
    }
    return out + "  ]\n}\n"
  }

  /// One catalog item as a one-line JSON object, keys in a fixed order.
  static func catalogJSONObject(_ item: MenuItem) -> String {
    var fields = [
      "\"id\": " + jsonString(item.id), "\"name\": " + jsonString(item.name),
      "\"category\": " + jsonString(item.category),
    ]
    if !item.tags.isEmpty { fields.append("\"tags\": " + jsonArray(item.tags)) }
    if let price = item.price { fields.append("\"price\": " + number(price)) }
    if let image = item.image { fields.append("\"image\": " + jsonString(image)) }
    if !item.allergens.isEmpty { fields.append("\"allergens\": " + jsonArray(item.allergens)) }
    if !item.diets.isEmpty { fields.append("\"diets\": " + jsonArray(item.diets)) }
    let a = item.availability
    var available: [String] = []
    if let days = a.weekdays { available.append("\"weekdays\": " + jsonArray(weekdayNames(days))) }
    if let from = a.from { available.append("\"from\": " + jsonString(from.description)) }
    if let until = a.until { available.append("\"until\": " + jsonString(until.description)) }
    if !available.isEmpty {
      fields.append("\"available\": {" + available.joined(separator: ", ") + "}")
    }
    return "{" + fields.joined(separator: ", ") + "}"
  }

  static func catalogCSV(_ items: [MenuItem]) -> String {
    var out = catalogCSVHeader + "\n"
    for item in items {
      let a = item.availability
      let cells = [
        item.id, item.name, item.category, item.tags.joined(separator: "|"),
        item.price.map(number) ?? "", item.image ?? "", item.allergens.joined(separator: "|"),
        item.diets.joined(separator: "|"),
        a.weekdays.map { weekdayNames($0).joined(separator: "|") } ?? "",
        a.from?.description ?? "", a.until?.description ?? "",
      ]
      out += cells.map(csvField).joined(separator: ",") + "\n"
    }
    return out
  }

  /// `{"users": [...]}` with one user per line; empty lists are left out.
  static func usersJSON(_ users: [UserProfile]) -> String {
    var out = "{\n  \"users\": [\n"
    for (n, user) in users.enumerated() {
      var fields = ["\"id\": " + jsonString(user.id)]
      if !user.diets.isEmpty { fields.append("\"diets\": " + jsonArray(user.diets)) }
      if !user.allergens.isEmpty { fields.append("\"allergens\": " + jsonArray(user.allergens)) }
      if !user.dislikedCategories.isEmpty {
        fields.append("\"disliked_categories\": " + jsonArray(user.dislikedCategories))
      }
      out += "    {" + fields.joined(separator: ", ") + "}" + (n + 1 < users.count ? ",\n" : "\n")
    }
    return out + "  ]\n}\n"
  }

  static func usersCSV(_ users: [UserProfile]) -> String {
    var out = usersCSVHeader + "\n"
    for user in users {
      let cells = [
        user.id, user.diets.joined(separator: "|"), user.allergens.joined(separator: "|"),
        user.dislikedCategories.joined(separator: "|"),
      ]
      out += cells.map(csvField).joined(separator: ",") + "\n"
    }
    return out
  }

  /// One compact JSON object per line, keys in a fixed order: user, item, swipe (or dx and
  /// width), at, position, deck.
  static func eventsJSONLines(_ events: [SampleEvent]) -> String {
    var out = ""
    out.reserveCapacity(events.count * 120)
    for e in events { out += eventJSON(e) + "\n" }
    return out
  }

  /// One event as a compact JSON object (no trailing newline).
  static func eventJSON(_ e: SampleEvent) -> String {
    var out = "{\"user\":" + jsonString(e.user) + ",\"item\":" + jsonString(e.item)
    if let swipe = e.swipe {
      out += ",\"swipe\":\"" + swipe.name + "\""
    } else if let drag = e.drag {
      out += ",\"dx\":" + tenths(drag.dxTenths) + ",\"width\":" + String(drag.width)
    }
    out += ",\"at\":\"" + timestamp(e.at) + "\",\"position\":" + String(e.position)
    return out + ",\"deck\":\"" + e.deck.description + "\"}"
  }

  static func eventsCSV(_ events: [SampleEvent]) -> String {
    var out = eventsCSVHeader + "\n"
    out.reserveCapacity(events.count * 80)
    for e in events {
      let cells = [
        e.user, e.item, e.swipe?.name ?? "", timestamp(e.at), String(e.position),
        e.deck.description, e.drag.map { tenths($0.dxTenths) } ?? "",
        e.drag.map { String($0.width) } ?? "",
      ]
      out += cells.map(csvField).joined(separator: ",") + "\n"
    }
    return out
  }

  // MARK: Scalars

  /// A JSON string literal (DeckIO's escaping, shared by every writer).
  static func jsonString(_ s: String) -> String { JSONText.string(s) }

  static func jsonArray(_ values: [String]) -> String {
    "[" + values.map(jsonString).joined(separator: ", ") + "]"
  }

  /// An RFC 4180 field: quoted (with quotes doubled) only when it holds a comma, a quote, CR or LF.
  static func csvField(_ s: String) -> String {
    guard s.utf8.contains(where: { $0 == 0x2C || $0 == 0x22 || $0 == 0x0A || $0 == 0x0D }) else {
      return s
    }
    var out = "\""
    for c in s.unicodeScalars {
      if c == "\"" { out += "\"" }
      out.unicodeScalars.append(c)
    }
    return out + "\""
  }

  /// A number as an integer when whole (`980`), otherwise Swift's shortest round-trip form.
  static func number(_ value: Double) -> String { Text.number(value) }

  /// Tenths as a decimal with exactly one fractional digit: -2125 -> "-212.5", 3900 -> "390.0".
  static func tenths(_ value: Int) -> String {
    let magnitude = value.magnitude
    return (value < 0 ? "-" : "") + String(magnitude / 10) + "." + String(magnitude % 10)
  }

  /// Local wall-clock seconds as ISO 8601 with the sample's offset: `2026-11-20T19:05:12+09:00`.
  static func timestamp(_ at: Int64) -> String {
    let day = localDay(seconds: at)
    let seconds = Int(at - day * 86_400)
    let date = DeckDate(daysSinceEpoch: Int32(day))
    return date.description + "T" + twoDigits(seconds / 3600) + ":"
      + twoDigits(seconds / 60 % 60) + ":" + twoDigits(seconds % 60) + utcOffset
  }

  private static func twoDigits(_ n: Int) -> String { n < 10 ? "0" + String(n) : String(n) }

  private static func weekdayNames(_ days: Set<Weekday>) -> [String] {
    days.sorted().map(\.short)
  }
}
