"""cpp/random/numpy_generator.h against numpy itself, word for word.

The header is header-only and Python-free, so the test compiles a small
driver (tests/core/cpp/numpy_generator_driver.cc) with the system C++
compiler, feeds it a script of draws, and replays the same script on
numpy's ``Generator(PCG64(SeedSequence(seed)))``; every value must be equal
(doubles by their bit patterns). Exact equality is the point: MiniGrid and
BabyAI lay out their levels from these draws, so one differing draw is a
different level.
"""

from __future__ import annotations

import random
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "tests" / "core" / "cpp" / "numpy_generator_driver.cc"
CXX = shutil.which("g++") or shutil.which("c++")

pytestmark = pytest.mark.skipif(CXX is None, reason="no C++ compiler")

U64 = 2**64
# Bounds where the algorithms change branch or where rejection is likeliest:
# a single value (no draw), 2 (one bit), powers of two and their neighbours,
# the 32-bit / 64-bit switch at 2^32, just above half a word (the
# rejection-heaviest spans), the full 32-bit range (next_uint32 as it is).
SPANS = sorted(
    {1, 2, 3, 5, 7, 10, 100, 1000, 2**31 + 1, 2**32 - 1, 2**32, 2**32 + 1, 2**63 + 1, 2**64 - 1}
    | {2**k for k in range(1, 64)}
    | {2**k - 1 for k in range(2, 64)}
    | {2**k + 1 for k in range(1, 63)}
    | {3 * 2**k for k in range(0, 62)}
)


@pytest.fixture(scope="module")
def driver(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("numpy_generator") / "driver"
    cmd = [CXX, "-std=c++20", "-O2", "-Wall", "-Wextra", "-Werror", f"-I{ROOT}", str(SOURCE), "-o", str(exe)]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return exe


def _words(n: int) -> list[int]:
    """SeedSequence's words for a non-negative Python int: low word first."""
    out = [n & 0xFFFFFFFF]
    n >>= 32
    while n:
        out.append(n & 0xFFFFFFFF)
        n >>= 32
    return out


def _bits(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


class Script:
    """Draws on numpy while writing the same draws for the driver."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.expected: list[np.ndarray] = []
        self.rng: np.random.Generator | None = None

    def _expect(self, values) -> None:
        self.expected.append(np.asarray(values).astype(np.int64).view(np.uint64).ravel())

    def seed(self, s: int) -> None:
        assert 0 <= s < U64
        self.lines.append(f"seed {s}")
        self.rng = np.random.default_rng(s)

    def words(self, entropy: int | list[int]) -> None:
        """A generator from a big int or a list of 32-bit words."""
        words = _words(entropy) if isinstance(entropy, int) else list(entropy)
        self.lines.append(f"words {len(words)} " + " ".join(map(str, words)))
        self.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy)))

    def state(self) -> None:
        self.lines.append("state")
        st = self.rng.bit_generator.state
        s, inc = st["state"]["state"], st["state"]["inc"]
        self._expect_u64([s >> 64, s % U64, inc >> 64, inc % U64, st["has_uint32"], st["uinteger"]])

    def _expect_u64(self, values: list[int]) -> None:
        self.expected.append(np.array(values, dtype=np.uint64))

    def u64(self, k: int) -> None:
        self.lines.append(f"u64 {k}")
        self.expected.append(self.rng.bit_generator.random_raw(k).astype(np.uint64))

    def u32(self, k: int, scalar: bool = False) -> None:
        # next_uint32 itself: integers over the full uint32 range takes one
        # next_uint32 per value (Lemire cannot express that span).
        self.lines.append(f"u32 {k}")
        if scalar:
            vals = [int(self.rng.integers(0, 2**32, dtype=np.uint32)) for _ in range(k)]
            self._expect_u64(vals)
        else:
            self.expected.append(self.rng.integers(0, 2**32, size=k, dtype=np.uint32).astype(np.uint64))

    def random(self, k: int, scalar: bool = False) -> None:
        self.lines.append(f"random {k}")
        vals = [self.rng.random() for _ in range(k)] if scalar else self.rng.random(k)
        self.expected.append(np.asarray(vals, dtype=np.float64).view(np.uint64))

    def uniform(self, low: float, high: float, k: int, scalar: bool = False) -> None:
        self.lines.append(f"uniform {float(low).hex()} {float(high).hex()} {k}")
        if scalar:
            vals = [self.rng.uniform(low, high) for _ in range(k)]
        else:
            vals = self.rng.uniform(low, high, size=k)
        self.expected.append(np.asarray(vals, dtype=np.float64).view(np.uint64))

    def integers(self, low: int, high: int, k: int, scalar: bool = False, closed: bool = False) -> None:
        self.lines.append(f"{'closed' if closed else 'integers'} {low} {high} {k}")
        if scalar:
            vals = [int(self.rng.integers(low, high, endpoint=closed)) for _ in range(k)]
            self._expect_u64([v % U64 for v in vals])
        else:
            self._expect(self.rng.integers(low, high, size=k, endpoint=closed))

    def choice(self, n: int, k: int) -> None:
        # choice on a Python sequence (minigrid's crossing envs pass a range).
        self.lines.append(f"choice {n} {k}")
        seq = range(n)
        self._expect_u64([int(self.rng.choice(seq)) for _ in range(k)])

    def shuffle(self, n: int) -> None:
        # A Python list, as minigrid shuffles (the untyped path of shuffle).
        self.lines.append(f"shuffle {n}")
        lst = list(range(n))
        self.rng.shuffle(lst)
        self._expect_u64(lst)

    def shuffle_array(self, n: int) -> None:
        # A 1-D int64 array (numpy's typed path) must shuffle the same way.
        self.lines.append(f"shuffle {n}")
        arr = np.arange(n, dtype=np.int64)
        self.rng.shuffle(arr)
        self._expect(arr)

    def permutation(self, n: int) -> None:
        self.lines.append(f"permutation {n}")
        self._expect(self.rng.permutation(n))

    def error(self) -> None:
        self.lines.append("error")
        # Refusals draw nothing: the state after them is compared later.
        with pytest.raises(ValueError):
            self.rng.integers(0, 0)
        with pytest.raises(ValueError):
            self.rng.uniform(5.0, 2.0)
        with pytest.raises(OverflowError):
            self.rng.uniform(0.0, np.inf)
        self._expect_u64([1, 1, 1])

    def check(self, driver: Path) -> int:
        """Runs the driver; returns the number of words compared."""
        res = subprocess.run(
            [str(driver)], input=("\n".join(self.lines) + "\n").encode(), capture_output=True, timeout=600, check=False
        )
        assert res.returncode == 0, res.stderr.decode()
        got = np.frombuffer(res.stdout, dtype="<u8")
        want = np.concatenate(self.expected) if self.expected else np.zeros(0, np.uint64)
        assert got.shape == want.shape, (got.shape, want.shape)
        bad = np.flatnonzero(got != want)
        if bad.size:
            # Name the command that produced the first differing word.
            pos, first = 0, int(bad[0])
            for line, chunk in zip(self.lines_with_output(), self.expected):
                if pos + chunk.size > first:
                    raise AssertionError(f"{line}: word {first - pos}: {got[first]} != {want[first]}")
                pos += chunk.size
        return got.size

    def lines_with_output(self) -> list[str]:
        return [ln for ln in self.lines if not ln.startswith(("seed", "words"))]


def _seeds(rnd: random.Random, count: int) -> list[int]:
    """Small seeds, seeds around 2^32 (one word vs two) and near 2^64."""
    fixed = [0, 1, 2, 3, 42, 1234, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63 - 1, 2**63, 2**63 + 1]
    fixed += [2**64 - 2, 2**64 - 1, 0xDEADBEEF00000000, 0x00000000DEADBEEF]
    fixed += [rnd.randrange(2**32) for _ in range(count)]
    fixed += [rnd.randrange(2**32, 2**63) for _ in range(count)]
    fixed += [rnd.randrange(2**63, 2**64) for _ in range(count)]
    return fixed


def _interleaved(script: Script, rnd: random.Random, ops: int) -> None:
    """A random mixture of every draw, so each kind of draw meets PCG64's
    32-bit buffer in both states (full after an odd number of 32-bit words,
    and kept across any number of 64-bit draws)."""
    for _ in range(ops):
        kind = rnd.randrange(12)
        k = rnd.choice([1, 1, 1, 2, 3, 7])
        scalar = rnd.random() < 0.5
        if kind == 0:
            script.u64(k)
        elif kind == 1:
            script.u32(k, scalar=scalar)
        elif kind == 2:
            script.random(k, scalar=scalar)
        elif kind == 3:
            lo = rnd.choice([0.0, -1.0, 2.5, -1e300, 1e-300])
            script.uniform(lo, lo + rnd.choice([0.0, 1.0, 0.5, 1e300, 3.0]), k, scalar=scalar)
        elif kind in (4, 5, 6):
            span = rnd.choice(SPANS)
            if span >= 2**63:
                low = rnd.randrange(-(2**63), 2**63 - span)
            else:
                low = rnd.choice([0, 0, -1, 1, -(2**31), rnd.randrange(-(2**40), 2**40)])
                low = max(-(2**63), min(low, 2**63 - 1 - span))
            script.integers(low, low + span, k, scalar=scalar)
        elif kind == 7:
            span = rnd.choice(SPANS)
            low = rnd.choice([0, -5])
            low = max(-(2**63), min(low, 2**63 - span))
            script.integers(low, low + span - 1, k, scalar=scalar, closed=True)
        elif kind == 8:
            script.choice(rnd.choice([1, 2, 3, 4, 5, 6, 7, 8, 13, 17, 100]), k)
        elif kind == 9:
            script.shuffle(rnd.randrange(0, 40))
        elif kind == 10:
            script.shuffle_array(rnd.randrange(0, 40))
        else:
            script.permutation(rnd.randrange(0, 40))


def test_seeding_matches_numpy(driver: Path) -> None:
    """The PCG64 state after SeedSequence, for int seeds and word lists."""
    rnd = random.Random(1)
    script = Script()
    for s in _seeds(rnd, 100):
        script.seed(s)
        script.state()
        script.u64(3)
    # Entropy of 0..9 words: no words, fewer than the pool's four (padded with
    # hashed zeros), more than four (the extra words fold into the pool), and
    # Python ints >= 2^64 (gymnasium accepts any non-negative int).
    for n in range(0, 10):
        for _ in range(5):
            script.words([rnd.randrange(2**32) for _ in range(n)])
            script.state()
            script.u64(2)
    for s in [2**64, 2**64 + 1, 2**100 - 1, 2**128, 2**200 + 12345, 3**150]:
        script.words(s)
        script.state()
        script.u64(2)
    assert script.check(driver) > 0


def test_every_draw_across_bounds(driver: Path) -> None:
    """Each method, each span, from a few seeds: about a million words."""
    script = Script()
    for s in [0, 7, 2**32 + 5, 2**64 - 1]:
        script.seed(s)
        script.u64(20000)
        script.u32(20001)
        script.random(20000)
        script.uniform(-3.0, 7.5, 20000)
        for span in SPANS:
            for low in (0, -1, -(2**40), 2**40):
                # high = low + span must fit int64 (numpy's int64 integers).
                low = max(-(2**63), min(low, 2**63 - 1 - span))
                script.integers(low, low + span, 500)
                script.u32(1)  # flips the buffered half between runs
        script.integers(-(2**63), 2**63 - 1, 1000)
        script.integers(-(2**63), 2**63 - 1, 1000, closed=True)  # the full 64-bit span
        script.integers(5, 5, 10, closed=True)  # a single value draws nothing
        script.u32(3)
        for n in range(0, 70):
            script.shuffle(n)
            script.permutation(n)
        for n in (1, 2, 3, 7, 8, 9, 100):
            script.choice(n, 200)
        script.error()
        script.state()  # the streams end in the same state too
    assert script.check(driver) > 1_000_000


def test_interleaved_draws(driver: Path) -> None:
    rnd = random.Random(2)
    script = Script()
    for s in _seeds(rnd, 4):
        script.seed(s)
        _interleaved(script, rnd, 60)
        script.state()
    assert script.check(driver) > 0


def test_minigrid_style_calls(driver: Path) -> None:
    """What minigrid's helpers do: _rand_int/_rand_pos (integers on small
    spans), _rand_bool (integers(0, 2)), _rand_elem (integers(0, len)),
    _rand_float (uniform), shuffle of a list, choice of a range, in the same
    generator as gymnasium.utils.seeding.np_random(seed) makes."""
    from gymnasium.utils import seeding

    for seed in (0, 5, 2**32 + 1, 2**64 - 1):
        np_random, _ = seeding.np_random(seed)
        ref = np.random.default_rng(seed)
        assert np_random.bit_generator.state == ref.bit_generator.state
    rnd = random.Random(3)
    script = Script()
    for s in range(200):
        script.seed(s)
        for _ in range(30):
            w = rnd.randrange(3, 30)
            script.integers(1, w - 1, 1, scalar=True)
            script.integers(0, 2, 1, scalar=True)
            script.integers(0, rnd.randrange(1, 7), 1, scalar=True)
            if rnd.random() < 0.2:
                script.uniform(0.0, 1.0, 1, scalar=True)
            if rnd.random() < 0.2:
                script.shuffle(rnd.randrange(1, 12))
            if rnd.random() < 0.2:
                script.choice(rnd.randrange(1, 12), 1)
    assert script.check(driver) > 0


@pytest.mark.slow
def test_many_seeds_and_draws(driver: Path) -> None:
    """A bigger sweep: hundreds of seeds, tens of millions of words."""
    rnd = random.Random(4)
    script = Script()
    for s in _seeds(rnd, 100):
        script.seed(s)
        script.u64(20000)
        script.u32(20001)
        script.random(10000)
        for span in rnd.sample(SPANS, 40):
            low = max(-(2**63), min(rnd.randrange(-(2**62), 2**62), 2**63 - 1 - span))
            script.integers(low, low + span, 2000)
        for n in rnd.sample(range(1, 300), 10):
            script.shuffle(n)
        script.state()
    assert script.check(driver) > 10_000_000


@pytest.mark.slow
def test_many_interleavings(driver: Path) -> None:
    rnd = random.Random(5)
    script = Script()
    for s in _seeds(rnd, 150):
        script.seed(s)
        _interleaved(script, rnd, 300)
        script.state()
    assert script.check(driver) > 0
