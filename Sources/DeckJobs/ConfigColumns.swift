import DeckBase
import DeckCore
import DeckIO
import DeckStrategies

extension MenuDeckConfig {
  /// `"columns": {"map": {"user": "userId", ...}, "right": "rating>=4", "left": "rating<=2"}`.
  package static func parseColumns(_ v: JSONValue) throws(DeckIOError) -> ColumnMapping {
    let labels = columnsLabels
    _ = try v.requireObject(field: "columns")
    try v.rejectUnknownKeys(allowed: columnsKeys, in: "'columns'")
    var map: [ColumnMapping.Field: String] = [:]
    if let m = try v.optionalValue(at: "map") {
      let valid = ColumnMapping.Field.allCases.map(\.rawValue)
      for member in try m.requireObject("field 'columns.map' (field: column name)").members {
        guard let field = ColumnMapping.Field(rawValue: member.key) else {
          throw member.value.error(
            "\(labels.columns): unknown field '\(member.key)'\(didYouMean(member.key, valid)); "
              + "fields: " + valid.joined(separator: ", "))
        }
        map[field] = try member.value.requireString("the column of '\(member.key)'")
      }
    }
    func rule(_ key: String, _ label: String) throws(DeckIOError) -> RatingRule? {
      guard let r = try v.optionalValue(at: key) else { return nil }
      let text = try r.requireString(field: "columns.\(key)")
      do {
        return try RatingRule.parse(text, label: label)
      } catch {
        throw r.error(error.message)
      }
    }
    let right = try rule("right", labels.right)
    let left = try rule("left", labels.left)
    do {
      return try ColumnMapping(columns: map, right: right, left: left, labels: labels)
    } catch {
      throw v.error(error.message)
    }
  }
}
