/// The description of a thrown error, or nil when nothing was thrown.
func message(_ body: () throws -> Void) -> String? {
  do {
    try body()
    return nil
  } catch {
    return String(describing: error)
  }
}
