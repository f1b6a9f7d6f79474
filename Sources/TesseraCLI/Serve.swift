import ArgumentParser
import Dispatch
import Foundation
import Tessera
import TesseraServe

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve a live preview page of a graph: its nodes' thumbnails, times, controls and errors.",
        discussion: """
            The page (http://127.0.0.1:PORT/?token=TOKEN, printed) shows the graph, a thumbnail of every node's \
            output rendered at preview size (sources decoded up to 8 times smaller, lengths in pixels scaled to \
            match), each node's time, and every problem at its line in the file. Saving the file renders again and \
            the page follows. The page's controls apply as --set overrides; "Write to file" writes them into the \
            file, comments kept. Nothing is written where the graph's save nodes point. The server answers only \
            requests that carry its token and name it by its loopback address, from its own page (see \
            Docs/Serve.md); the graph reads only regular files inside its folder unless --read-anywhere is \
            given. Stop with Ctrl-C.
            """)

    @Argument(help: "The graph file (.yaml, .yml or .json); the page can open the other graphs of its folder.")
    var graph: String

    @Option(help: "The port to listen on (default: any free port, printed).")
    var port: Int = 0

    @Option(help: "The IPv4 address to listen on; the default keeps the page to this machine.")
    var host = "127.0.0.1"

    @Option(help: "Decode sources smaller for the preview while their longer side stays at least this, in pixels.")
    var previewSize = 512

    @Flag(help: "Let the graph (and the page's values) read files outside the graph's folder.")
    var readAnywhere = false

    @OptionGroup var options: GraphOptions
    @OptionGroup var plugins: PluginOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535") }
        guard (16...8192).contains(previewSize) else { throw ValidationError("--preview-size must be 16 to 8192") }
    }

    func run() throws {
        let catalog = try plugins.catalog()
        let session: PreviewSession
        do {
            let overrides = try options.overrides.map { text throws(GraphErrors) in
                try ParameterOverride(parsing: text)
            }
            session = try PreviewSession(
                path: graph, catalog: catalog, overrides: overrides, previewSide: previewSize,
                readsAnywhere: readAnywhere)
        } catch let error as GraphErrors {
            report(error.diagnostics)
            throw ExitCode(2)
        } catch {
            StandardError.write("Error: \(error)\n")
            throw ExitCode(1)
        }
        // Ctrl-C and SIGTERM only raise a flag, so the scratch folder is removed before the process ends.
        Signals.catchInterrupts()
        // A page that goes away, or a Graphviz stopped mid-drawing, is an error on its write, not the end.
        signal(SIGPIPE, SIG_IGN)
        let server = PreviewServer(session: session, host: host, port: UInt16(port))
        do {
            _ = try server.start()
        } catch {
            StandardError.write("Error: cannot listen on \(host):\(port): \(error)\n")
            session.shutDown()
            throw ExitCode(1)
        }
        session.start()
        StandardOutput.print("Serving \(graph) at \(server.url) (Ctrl-C stops)")
        StandardOutput.flush()
        while !Signals.interrupted { usleep(50_000) }
        server.stop()
        session.shutDown()
    }
}
