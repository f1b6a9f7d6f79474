"""What the Vision plugin's MediaPipe fixture scripts share: the repository, the people photos they run on,
the folder their MediaPipe fixtures go to, and the MediaPipe release they are pinned to (another release's
models give other fixtures)."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PEOPLE = ["four-fingers-1", "four-fingers-2", "four-fingers-3", "four-fingers-4",
          "phone-1", "phone-2", "phone-3", "phone-4"]
IMAGES = [f"Examples/images/people/{s}.jpg" for s in PEOPLE] + ["Examples/images/astronaut.png"]
MEDIAPIPE_FIXTURES = os.path.join(ROOT, "Plugins/Vision/Tests/Fixtures/mediapipe")
MEDIAPIPE_VERSION = "0.10.21"


def require_mediapipe(mp):
    """Stops the script unless `mp` is the pinned MediaPipe."""
    if mp.__version__ != MEDIAPIPE_VERSION:
        sys.exit(f"needs mediapipe {MEDIAPIPE_VERSION}, found {mp.__version__}")
