"""per-frame.py GRAPH.yaml INPUT OUTPUT WIDTH HEIGHT: the C harness's measurement through the Python
package, NumPy in and out: milliseconds a frame (median of 5 rounds of 60 frames), then the same on a
16x16 frame. Run by Scripts/per-frame.sh with the package on sys.path."""
import statistics
import sys
import time

import numpy as np
import tessera

FRAMES, ROUNDS = 60, 5


def time_frames(path, node, output, width, height):
    graph = tessera.Graph.load(path)
    frame = (np.arange(width * height * 3, dtype=np.uint64) * 2654435761 >> 24).astype(np.uint8)
    frame = frame.reshape(height, width, 3)
    rounds = []
    for r in range(-1, ROUNDS):  # round -1 warms up (and prepares the graph)
        start = time.perf_counter()
        for f in range(FRAMES):
            frame[0, 0, 0] = f  # a new frame each time
            graph.run(inputs={node: frame}, keep=[output])
            graph.image(output)
        if r >= 0:
            rounds.append((time.perf_counter() - start) / FRAMES * 1000)
    graph.close()
    return statistics.median(rounds)


path, node, output, width, height = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
print(f"{time_frames(path, node, output, width, height):.2f} {time_frames(path, node, output, 16, 16):.3f}")
