"""Tests of the Python package over libtessera.so.

    TESSERA_LIBRARY=out/lib/libtessera.so TESSERA_CLI=path/to/tessera python3 -m unittest discover -s python/tests

The command line (TESSERA_CLI) is the reference for pixels and values: the same graph read from a file
must give the same bytes through NumPy. Pillow reads the PNG files, independently of Tessera.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import tessera  # noqa: E402

REPOSITORY = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PHOTO = os.path.join(REPOSITORY, "Examples", "images", "astronaut.png")
CLI = os.environ.get("TESSERA_CLI", "tessera")


def cli(*arguments, folder):
    return subprocess.run([CLI, *arguments], cwd=folder, capture_output=True, text=True, check=True)


class PixelsTests(unittest.TestCase):
    def test_blur_of_an_array_is_the_command_lines_blur_of_the_file(self):
        photo = np.asarray(Image.open(PHOTO).convert("RGB"))
        self.assertEqual(photo.shape, (512, 512, 3))
        graph = tessera.Graph.parse("""
version: 1
nodes:
  photo: { op: input, width: 512, height: 512, channels: 3 }
  soft: { op: gaussianBlur, input: photo, sigma: 2 }
""")
        result = graph.run(inputs={"photo": photo}, keep=["soft"])
        soft = result.images["soft"]
        self.assertEqual((soft.shape, soft.dtype), ((512, 512, 3), np.uint8))
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "g.yaml"), "w") as file:
                file.write(f"""version: 1
nodes:
  photo: {{ op: load, path: "{PHOTO}" }}
  soft: {{ op: gaussianBlur, input: photo, sigma: 2 }}
  out: {{ op: save, input: soft, path: soft.png }}
""")
            cli("run", "g.yaml", "-q", folder=folder)
            expected = np.asarray(Image.open(os.path.join(folder, "soft.png")))
        np.testing.assert_array_equal(soft, expected)
        # The blur did something: the array is not the photo.
        self.assertGreater(np.abs(soft.astype(int) - photo).mean(), 1)

    def test_samples_come_back_as_they_went_in(self):
        graph = tessera.Graph.parse("""
version: 1
nodes:
  photo: { op: input, width: 5, height: 3, channels: 4 }
  gray: { op: input, width: 5, height: 3, channels: 1 }
""")
        rng = np.random.default_rng(7)
        words = rng.integers(0, 65536, size=(3, 5, 4), dtype=np.uint16)
        result = graph.run(inputs={"photo": words, "gray": np.arange(15, dtype=np.uint8).reshape(3, 5)},
                           keep=["photo", "gray"])
        np.testing.assert_array_equal(result.images["photo"], words)
        np.testing.assert_array_equal(result.images["gray"], np.arange(15, dtype=np.uint8).reshape(3, 5))
        # Floats as they are; 8 bits as save rounds them (ties to even).
        scale = np.float32(1) / np.float32(65535)
        np.testing.assert_array_equal(graph.image("photo", dtype=np.float32), words.astype(np.float32) * scale)
        np.testing.assert_array_equal(graph.image("photo", dtype=np.uint8), np.rint(words / 257.0).astype(np.uint8))
        # A view into a larger array (rows apart) and float64 are taken too.
        big = rng.random((10, 20, 4))
        graph.run(inputs={"photo": big[2:5, 3:8]}, keep=["photo"])
        np.testing.assert_array_equal(graph.image("photo"), big[2:5, 3:8].astype(np.float32))


class ValuesTests(unittest.TestCase):
    def test_saliency_boxes_are_python_objects_and_those_of_the_command_line(self):
        photo = np.asarray(Image.open(PHOTO).convert("RGB"))
        graph = tessera.Graph.parse("""
version: 1
nodes:
  photo: { op: input, width: 512, height: 512, channels: 3 }
  heat: { op: saliency, input: photo, kind: objectness }
""")
        result = graph.run(inputs={"photo": photo})
        boxes = result.values["heat.boxes"]
        self.assertEqual(boxes["kind"], "boxes")
        self.assertGreater(len(boxes["boxes"]), 0)
        for box in boxes["boxes"]:
            self.assertTrue(all(isinstance(box[key], (int, float)) for key in ("x", "y", "width", "height")))
            self.assertTrue(0 <= box["x"] < 512 and 0 < box["width"] <= 512)
        self.assertEqual(graph.value("heat.boxes"), boxes)
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "g.yaml"), "w") as file:
                file.write(f"""version: 1
nodes:
  photo: {{ op: load, path: "{PHOTO}" }}
  heat: {{ op: saliency, input: photo, kind: objectness }}
""")
            printed = json.loads(cli("run", "g.yaml", "--json", folder=folder).stdout)
        self.assertEqual(printed["values"]["heat.boxes"], boxes)


VISION = os.environ.get("TESSERA_VISION_PLUGIN", os.path.join(REPOSITORY, "Plugins", "Vision", "libvision.so"))


@unittest.skipUnless(os.path.exists(VISION), "the Vision plugin is not built (make -C Plugins/Vision)")
class VisionValuesTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        # Once a process: a second load of the same plugin is refused (its node names are taken).
        tessera.load_plugin(VISION)

    def value_of(self, path, node):
        """`node` (`{ op: ..., input: photo }`) on the photo at `path` through the C API
        (tessera_graph_value_json) into Python objects, checked to be the same JSON the command line prints
        for the same pixels (a PNG, decoded the same by both)."""
        photo = np.asarray(Image.open(path).convert("RGB"))
        height, width = photo.shape[:2]
        graph = tessera.Graph.parse(f"""
version: 1
nodes:
  photo: {{ op: input, width: {width}, height: {height}, channels: 3 }}
  found: {node}
""")
        values = graph.run(inputs={"photo": photo}).values
        self.assertEqual(len(values), 1)
        name, value = next(iter(values.items()))
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "g.yaml"), "w") as file:
                file.write(f"""version: 1
nodes:
  photo: {{ op: load, path: "{path}" }}
  found: {node}
""")
            printed = json.loads(cli("run", "g.yaml", "--json", "--plugin", VISION, folder=folder).stdout)
        self.assertEqual(printed["values"][name], value)
        return value

    def test_body_poses_through_the_c_api_are_those_of_the_command_line(self):
        bodies = self.value_of(PHOTO, "{ op: detectBodyPose, input: photo }")
        self.assertEqual(bodies["kind"], "bodies")
        self.assertEqual(len(bodies["bodies"]), 1)
        body = bodies["bodies"][0]
        self.assertEqual((len(body["joints"]), len(body["vision"])), (33, 19))
        self.assertTrue(0 <= body["joints"]["nose"]["visibility"] <= 1)

    def test_a_document_through_the_c_api_is_that_of_the_command_line(self):
        # A card warped onto the astronaut with known corners (Scripts/make-document-fixtures.py).
        card = os.path.join(REPOSITORY, "Plugins", "Vision", "Tests", "Fixtures", "documents", "card-astronaut-10.png")
        page = self.value_of(card, "{ op: detectDocument, input: photo }")
        self.assertEqual(page["kind"], "rectangles")
        self.assertEqual(len(page["rectangles"]), 1)
        self.assertEqual(len(page["rectangles"][0]["corners"]), 4)


class CancelTests(unittest.TestCase):
    def test_another_thread_cancels_a_long_run_and_python_keeps_running(self):
        with tempfile.TemporaryDirectory() as folder:
            graph = tessera.Graph.parse("""
version: 1
nodes:
  big: { op: constant, width: 8000, height: 8000, color: [0.2, 0.5, 0.8, 1] }
  soft: { op: gaussianBlur, input: big, sigma: 40 }
  out: { op: save, input: soft, path: big.png }
""", base_folder=folder)
            started = threading.Event()
            ticks = []
            stop = threading.Event()

            def count():  # pure Python: it runs only while the run does not hold the GIL
                while not stop.is_set():
                    ticks.append(1)
                    time.sleep(0.001)

            def cancel():
                started.wait(60)
                time.sleep(0.3)
                graph.cancel()

            threads = [threading.Thread(target=count), threading.Thread(target=cancel)]
            for thread in threads:
                thread.start()
            begun = time.monotonic()
            with self.assertRaises(tessera.CancelledError) as raised:
                graph.run(threads=2, progress=lambda fraction: started.set())
            elapsed = time.monotonic() - begun
            stop.set()
            for thread in threads:
                thread.join()
            self.assertIn("interrupted", raised.exception.message)
            self.assertLess(elapsed, 30)
            self.assertGreater(len(ticks), 50)
            self.assertEqual(os.listdir(folder), [])  # nothing half-written, no temporary file

    def test_a_progress_callback_that_raises_stops_the_run_and_its_exception_comes_back(self):
        graph = tessera.Graph.parse("""
version: 1
nodes:
  a: { op: constant, width: 300, height: 200 }
  b: { op: gaussianBlur, input: a, sigma: 3 }
""")

        def broken(fraction):
            raise KeyError("from the callback")

        with self.assertRaises(KeyError):
            graph.run(keep=["b"], progress=broken)


class ErrorTests(unittest.TestCase):
    def test_errors_carry_tesseras_message_and_place(self):
        with self.assertRaises(tessera.GraphError) as raised:
            tessera.Graph.parse("version: 1\nnodes:\n  a: { op: constant, widht: 4 }\n")
        self.assertIn("did you mean 'width'?", raised.exception.message)
        self.assertEqual((raised.exception.file, raised.exception.line, raised.exception.column), ("graph", 3, 22))
        graph = tessera.Graph.parse("version: 1\nnodes:\n  photo: { op: input, width: 4, height: 2 }\n")
        with self.assertRaises(tessera.GraphError) as raised:
            graph.set_input("photo", np.zeros((2, 5, 3), np.uint8))
        self.assertEqual(str(raised.exception),
                         "graph:3:30: error: input node 'photo': the image supplied is 5x2, and the graph declares 4x2")
        self.assertEqual(raised.exception.line, 3)
        with self.assertRaises(tessera.GraphError):
            graph.set("photo.channels", 9)
        with self.assertRaises(TypeError):
            graph.set_input("photo", np.zeros((2, 4, 3), np.int32))
        with self.assertRaises(tessera.RunError) as raised:
            graph.run(keep=["photo"])
        self.assertIn("no image was supplied", raised.exception.message)
        with self.assertRaises(tessera.TesseraError) as raised:
            graph.image("photo")
        self.assertIn("the graph has not run", raised.exception.message)


if __name__ == "__main__":
    unittest.main()
