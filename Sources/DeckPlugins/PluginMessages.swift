import DeckBase
import DeckCore
import DeckStrategies

/// The plugin protocol's version. A plugin states the version it speaks in its `describe`
/// reply; menudeck refuses any other. docs/plugins.md specifies every message.
package let pluginProtocolVersion = 1

/// The protocol's minor version that menudeck speaks: additions within version 1 that a plugin
/// opts into by declaring `"minor"` in its `describe` reply (absent = 0). Minor 1: a `rank`
/// message may carry `"want_policy": true` (only to a plugin of minor 1 or more), and a result
/// may carry `policy` (then) and `prefix_propensities`. A plugin that declares a later minor
/// than this is spoken to as minor 1.
package let pluginMinorVersion = 1

/// Messages menudeck writes to a plugin's stdin, one JSON object per line.
enum HostMessage {
  /// The first message: which protocol menudeck speaks and the plugin's configured name.
  case hello(name: String)
  /// Validated options (every declared option, defaults filled in) and the catalog.
  case start(options: [(String, OptionValue)], catalog: Catalog)
  /// Aggregated history: per-item counts, then `userBatches` `learn_users` lines.
  case learn(id: Int, full: Bool, history: History, users: Int, userBatches: Int)
  /// Per-diner records: (user id, that diner's records).
  case learnUsers(id: Int, users: [(String, UserHistory)])
  /// A batch of diners to rank; `wantPolicy` adds `"want_policy": true` (the evaluation asks
  /// for each diner's ranking distribution, to a plugin of minor version 1 or more).
  case rank(id: Int, batch: [ScoringContext], wantPolicy: Bool)
  /// The run is over; the plugin exits with status 0.
  case end

  /// The message as one line (with its newline). `ids` are the catalog's item ids as JSON
  /// strings, encoded once per run (by a `JSONWriter`, in `PluginStrategy`).
  func encode(ids: [[UInt8]]) -> [UInt8] {
    // A rank line is the bulk of the traffic: room for a typical request per diner up front.
    var w: JSONWriter
    if case .rank(_, let batch, _) = self {
      w = JSONWriter(capacity: 256 * batch.count)
    } else {
      w = JSONWriter(capacity: 256)
    }
    w.beginObject()
    switch self {
    case .hello(let name):
      w.field("type", "hello")
      w.field("protocol", int: pluginProtocolVersion)
      w.field("minor", int: pluginMinorVersion)
      w.field("name", name)
    case .start(let options, let catalog):
      Self.start(options: options, catalog: catalog, into: &w)
    case .learn(let id, let full, let history, let users, let userBatches):
      Self.learn(
        id: id, full: full, history: history, users: users, userBatches: userBatches, into: &w)
    case .learnUsers(let id, let users):
      Self.learnUsers(id: id, users: users, ids: ids, into: &w)
    case .rank(let id, let batch, let wantPolicy):
      Self.rank(id: id, batch: batch, wantPolicy: wantPolicy, ids: ids, into: &w)
    case .end:
      w.field("type", "end")
    }
    w.endObject()
    w.layout("\n")
    return w.bytes
  }

  private static func start(
    options: [(String, OptionValue)], catalog: Catalog, into w: inout JSONWriter
  ) {
    w.field("type", "start")
    w.key("options")
    w.beginObject()
    for (key, value) in options {
      w.key(key)
      switch value {
      case .double(let v): w.number(v)
      case .int(let v): w.int(v)
      case .bool(let v): w.bool(v)
      case .string(let v): w.string(v)
      }
    }
    w.endObject()
    w.key("catalog")
    w.beginArray()
    for item in catalog.items { Self.item(item, into: &w) }
    w.endArray()
  }

  /// One catalog item of the `start` message.
  private static func item(_ item: MenuItem, into w: inout JSONWriter) {
    w.beginObject()
    w.field("id", item.id)
    w.field("name", item.name)
    w.field("category", item.category)
    w.key("tags")
    w.strings(item.tags)
    w.field("price", number: item.price)
    w.key("allergens")
    w.strings(item.allergens)
    w.key("diets")
    w.strings(item.diets)
    w.endObject()
  }

  private static func learn(
    id: Int, full: Bool, history: History, users: Int, userBatches: Int,
    into w: inout JSONWriter
  ) {
    w.field("type", "learn")
    w.field("id", int: id)
    w.field("full", bool: full)
    w.field("events", int: history.events)
    w.key("item_right")
    w.beginArray()
    for v in history.itemRight { w.int(v) }
    w.endArray()
    w.key("item_left")
    w.beginArray()
    for v in history.itemLeft { w.int(v) }
    w.endArray()
    w.field("users", int: users)
    w.field("user_batches", int: userBatches)
  }

  private static func learnUsers(
    id: Int, users: [(String, UserHistory)], ids: [[UInt8]], into w: inout JSONWriter
  ) {
    w.field("type", "learn_users")
    w.field("id", int: id)
    w.key("users")
    w.beginArray()
    for (user, history) in users {
      w.beginArray()
      w.string(user)
      Self.records(history, ids: ids, into: &w)
      w.endArray()
    }
    w.endArray()
  }

  private static func rank(
    id: Int, batch: [ScoringContext], wantPolicy: Bool, ids: [[UInt8]], into w: inout JSONWriter
  ) {
    w.field("type", "rank")
    w.field("id", int: id)
    if wantPolicy { w.field("want_policy", bool: true) }
    w.key("requests")
    w.beginArray()
    // Diners of a batch mostly share a day: its text is made once per run of equal days.
    var lastDate = Int32.min
    var dateText = ""
    for context in batch {
      if context.date.daysSinceEpoch != lastDate {
        lastDate = context.date.daysSinceEpoch
        dateText = context.date.description
      }
      Self.request(context, dateText: dateText, ids: ids, into: &w)
    }
    w.endArray()
  }

  /// One diner's request of a `rank` message; `dateText` is its date, already formatted.
  private static func request(
    _ context: ScoringContext, dateText: String, ids: [[UInt8]], into w: inout JSONWriter
  ) {
    w.beginObject()
    w.field("user", context.user.id)
    w.key("diets")
    w.strings(context.user.diets)
    w.key("allergens")
    w.strings(context.user.allergens)
    w.key("disliked_categories")
    w.strings(context.user.dislikedCategories)
    w.field("date", dateText)
    w.field("seed", int: context.seed)
    w.key("history")
    if let history = context.userHistory {
      Self.records(history, ids: ids, into: &w)
    } else {
      w.beginArray()
      w.endArray()
    }
    w.key("candidates")
    w.beginArray()
    for item in context.candidates { w.fragment(bytes: ids[Int(item)]) }
    w.endArray()
    w.endObject()
  }

  /// `[[item, right, left, last_right, last_left], ...]`, dates as "YYYY-MM-DD" or null.
  private static func records(_ history: UserHistory, ids: [[UInt8]], into w: inout JSONWriter) {
    w.beginArray()
    for r in history.records {
      w.beginArray()
      w.fragment(bytes: ids[Int(r.item)])
      w.int(r.right)
      w.int(r.left)
      w.optionalDate(r.lastRightDay)
      w.optionalDate(r.lastLeftDay)
      w.endArray()
    }
    w.endArray()
  }
}

/// What a plugin says about itself in its `describe` reply.
struct PluginDescription: Equatable {
  var protocolVersion: Int
  /// The minor version the plugin declares (`"minor"`, 0 when absent).
  var minorVersion: Int
  var identifier: String
  var summary: String
  var options: [OptionSpec]
  /// Whether the plugin wants per-diner records in `learn` (`learn_users` lines).
  var learnUsers: Bool
}
