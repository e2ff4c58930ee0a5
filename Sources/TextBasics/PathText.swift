/// Path text as NSString's path methods take it apart (`/` separated; trailing `/`s
/// ignored), without bridging to NSString.
public enum PathText {
    /// The path without its last component: `a/b/c` → `a/b`, `/a` → `/`, `a` → ``.
    public static func deletingLastComponent(_ path: String) -> String {
        let p = trimmedTrailingSlashes(path)
        guard let slash = p.lastIndex(of: "/") else { return "" }
        let head = p[..<slash]
        if head.allSatisfy({ $0 == "/" }) { return "/" }
        return trimmedTrailingSlashes(String(head))
    }

    /// The last component: `a/b/c.txt` → `c.txt`, `a/b/` → `b`, `/` → `/`.
    public static func lastComponent(_ path: String) -> String {
        let p = trimmedTrailingSlashes(path)
        if p == "/" { return "/" }
        guard let slash = p.lastIndex(of: "/") else { return p }
        return String(p[p.index(after: slash)...])
    }

    /// The extension of the last component, without the dot: `a/b.tar.gz` → `gz`;
    /// `` when there is none or the component only starts with a dot.
    public static func pathExtension(_ path: String) -> String {
        let last = lastComponent(path)
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        let ext = last[last.index(after: dot)...]
        return ext.isEmpty ? "" : String(ext)
    }

    /// The path without the extension of its last component: `a/b.txt` → `a/b`.
    public static func deletingExtension(_ path: String) -> String {
        let ext = pathExtension(path)
        guard !ext.isEmpty else {
            let p = trimmedTrailingSlashes(path)
            return p.hasSuffix(".") && !lastComponent(p).allSatisfy({ $0 == "." }) ? String(p.dropLast()) : p
        }
        let p = trimmedTrailingSlashes(path)
        return String(p.dropLast(ext.count + 1))
    }

    private static func trimmedTrailingSlashes(_ p: String) -> String {
        var s = Substring(p.split(separator: "/", omittingEmptySubsequences: true).joined(separator: "/"))
        if p.hasPrefix("/") { s = "/" + s }
        while s.count > 1, s.last == "/" { s = s.dropLast() }
        return String(s)
    }
}
