import DeckBase
import DeckCore
import DeckIO
import Foundation

/// One file of the sample data set.
package struct SampleFile: Sendable, Equatable {
  package var name: String
  package var contents: String
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
    spacedDocument(key: "items", items) { w, item in writeCatalogItem(item, to: &w) }
  }

  /// `{\n  "KEY": [\n    ELEMENT,\n    ...\n  ]\n}\n`: the layout of the sample's JSON files.
  private static func spacedDocument<T>(
    key: String, _ elements: [T], _ element: (inout JSONWriter, T) -> Void
  ) -> String {
    var w = JSONWriter(style: .spaced)
    w.beginObject()
    w.layout("\n  ")
    w.key(key)
    w.beginArray()
    for e in elements {
      w.layout("\n    ")
      element(&w, e)
    }
    w.layout("\n  ")
    w.endArray()
    w.layout("\n")
    w.endObject()
    w.layout("\n")
    return w.text
  }

  /// One catalog item as a one-line JSON object, keys in a fixed order.
  static func catalogJSONObject(_ item: MenuItem) -> String {
    JSONWriter.text(style: .spaced) { writeCatalogItem(item, to: &$0) }
  }

  private static func writeCatalogItem(_ item: MenuItem, to w: inout JSONWriter) {
    w.beginObject()
    w.field("id", item.id)
    w.field("name", item.name)
    w.field("category", item.category)
    writeList("tags", item.tags, to: &w)
    if let price = item.price { w.field("price", number: price) }
    if let image = item.image { w.field("image", image) }
    writeList("allergens", item.allergens, to: &w)
    writeList("diets", item.diets, to: &w)
    let a = item.availability
    if a.weekdays != nil || a.from != nil || a.until != nil {
      w.key("available")
      w.beginObject()
      if let days = a.weekdays { writeList("weekdays", weekdayNames(days), always: true, to: &w) }
      if let from = a.from { w.field("from", from.description) }
      if let until = a.until { w.field("until", until.description) }
      w.endObject()
    }
    w.endObject()
  }

  /// A list of strings under `key`, left out when empty (unless `always`).
  private static func writeList(
    _ key: String, _ values: [String], always: Bool = false, to w: inout JSONWriter
  ) {
    guard always || !values.isEmpty else { return }
    w.key(key)
    w.strings(values)
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
    spacedDocument(key: "users", users) { w, user in
      w.beginObject()
      w.field("id", user.id)
      writeList("diets", user.diets, to: &w)
      writeList("allergens", user.allergens, to: &w)
      writeList("disliked_categories", user.dislikedCategories, to: &w)
      w.endObject()
    }
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
  static func eventsJSONLines(_ events: [LogEvent]) -> String {
    var w = JSONWriter(capacity: events.count * 120)
    for e in events {
      writeEvent(e, to: &w)
      w.layout("\n")
    }
    return w.text
  }

  /// One event as a compact JSON object (no trailing newline).
  static func eventJSON(_ e: LogEvent) -> String {
    JSONWriter.text { writeEvent(e, to: &$0) }
  }

  private static func writeEvent(_ e: LogEvent, to w: inout JSONWriter) {
    w.beginObject()
    w.field("user", e.user)
    w.field("item", e.item)
    if let swipe = e.swipe {
      w.field("swipe", swipe.name)
    } else if let drag = e.drag {
      // Tenths with exactly one decimal: -2125 -> -212.5, 3900 -> 390.0 (as `tenths`).
      w.key("dx")
      w.fixed(drag.dx, decimals: 1)
      if let width = drag.width { w.field("width", int: Int(width)) }
    }
    w.field("at", timestamp(e.at))
    if let position = e.position { w.field("position", int: position) }
    if let deck = e.deck { w.field("deck", deck.description) }
    w.endObject()
  }

  static func eventsCSV(_ events: [LogEvent]) -> String {
    var out = eventsCSVHeader + "\n"
    out.reserveCapacity(events.count * 80)
    for e in events {
      let cells = [
        e.user, e.item, e.swipe?.name ?? "", timestamp(e.at), e.position.map(String.init) ?? "",
        e.deck?.description ?? "", e.drag.map { tenths(of: $0.dx) } ?? "",
        e.drag?.width.map { String(Int($0)) } ?? "",
      ]
      out += cells.map(csvField).joined(separator: ",") + "\n"
    }
    return out
  }

  // MARK: Scalars

  /// A JSON string literal (DeckIO's escaping, shared by every writer).
  static func jsonString(_ s: String) -> String { JSONText.string(s) }

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

  /// A logged dx (a whole number of tenths) as `tenths` writes it.
  static func tenths(of dx: Double) -> String { tenths(Int((dx * 10).rounded())) }

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
