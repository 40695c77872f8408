import DeckCore

// The header row of a CSV log: menudeck's own columns, or those of a column mapping.
extension RecordParser {
  mutating func readHeader(_ p: UnsafePointer<UInt8>, _ k: Int) throws(LineFailure) {
    // One unquoted field holding another delimiter: no header of a log (two columns at least)
    // reads so; it is separated by the other one.
    if k == 1 && csvData[2] == 0,
      let other = delimiter.separating(
        UnsafeBufferPointer(start: p + csvData[0], count: csvData[1] - csvData[0]))
    {
      var failure = LineFailure(0, nil, delimiter.wrongDelimiter(other))
      failure.fatal = true
      throw failure
    }
    if let mapping {
      try readMappedHeader(p, k, mapping)
      return
    }
    var cols: [EventField?] = []
    var seen: UInt16 = 0
    for c in 0..<k {
      let start = csvData[3 * c]
      let (np, n) = csvFieldBytes(p, c)
      let field = EventField.identify(np, n)
      if let field {
        if seen & field.bit != 0 {
          var failure = LineFailure(
            start, field, "the header names this column twice; keep one")
          failure.fatal = true
          throw failure
        }
        seen |= field.bit
      }
      cols.append(field)
    }
    for required in [EventField.user, .item, .at] where seen & required.bit == 0 {
      var failure = LineFailure(
        0, nil,
        "the header has no '\(required.name)' column; it must name user, item, at and swipe "
          + "(or dx)")
      failure.fatal = true
      throw failure
    }
    if seen & (EventField.swipe.bit | EventField.dx.bit) == 0 {
      var failure = LineFailure(
        0, nil, "the header has no 'swipe' or 'dx' column; it must name one of them")
      failure.fatal = true
      throw failure
    }
    columns = cols
    csvFields.setColumns(cols)
    csvColumns = csvFields.columns
    csvEnds = csvFields.endsBase + 1
    csvByField = csvFields.byField
    csvColumnCount = cols.count
  }

  /// The header of a mapped log: columns by the mapping (see `ColumnMapping`).
  mutating func readMappedHeader(
    _ p: UnsafePointer<UInt8>, _ k: Int, _ mapping: ColumnMapping
  ) throws(LineFailure) {
    var names: [String] = []
    var offsets: [Int] = []
    for c in 0..<k {
      let start = csvData[3 * c]
      let (np, n) = csvFieldBytes(p, c)
      names.append(String(decoding: UnsafeBufferPointer(start: np, count: n), as: UTF8.self))
      offsets.append(start)
    }
    let header = try mapping.header(names, offsets: offsets)
    var cols: [EventField?] = []
    for (c, kind) in header.kinds.enumerated() {
      let field = EventField(rawValue: kind)
      cols.append(field)
      if let field, names[c] != field.name { mappedLabels[field] = names[c] }
      if kind == CSVFieldList.ratingColumn { ratingLabel = names[c] }
    }
    if header.untimed { setUntimed() }
    columns = cols
    csvFields.setKinds(header.kinds)
    csvColumns = csvFields.columns
    csvEnds = csvFields.endsBase + 1
    csvByField = csvFields.byField
    csvColumnCount = k
  }
}
