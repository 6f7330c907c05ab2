import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// A parsed XML document as a flat list of elements, for structural checks of SVG and JUnit
/// output with Foundation's parser (a document that is not well-formed does not parse).
struct XMLTree {
    struct Element {
        var name: String
        var attributes: [String: String]
        var text: String
        /// Names of the enclosing elements, outermost first.
        var ancestors: [String]
    }
    var elements: [Element]

    /// Nil when `xml` is not well-formed.
    init?(_ xml: String) {
        let delegate = Collector()
        let parser = XMLParser(data: Data(xml.utf8))
        parser.delegate = delegate
        guard parser.parse(), delegate.failed == false else { return nil }
        elements = delegate.done
    }

    func all(_ name: String) -> [Element] { elements.filter { $0.name == name } }
    func texts(_ name: String) -> [String] { all(name).map(\.text) }

    /// Collects elements in document order (a parent before its children).
    private final class Collector: NSObject, XMLParserDelegate {
        var open: [Int] = []
        var done: [Element] = []
        var failed = false
        func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                    attributes: [String: String] = [:]) {
            done.append(Element(name: name, attributes: attributes, text: "", ancestors: open.map { done[$0].name }))
            open.append(done.count - 1)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) {
            if let i = open.last { done[i].text += string }
        }
        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            _ = open.popLast()
        }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) { failed = true }
    }
}
