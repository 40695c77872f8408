/// The description of the error `body` throws, or nil when it throws nothing.
func message(_ body: () throws -> Void) -> String? {
  guard case .failure(let error) = Result(catching: body) else { return nil }
  return String(describing: error)
}
