#!/usr/bin/env python3
"""Generate the trainer's bundled real datasets from the copies scikit-learn ships.

Writes one safetensors file per dataset into assets/datasets/ (relative to the
repository root, found from this script's location):

    digits.safetensors         sklearn.datasets.load_digits         1797 x 64, 10 classes
    iris.safetensors           sklearn.datasets.load_iris            150 x  4,  3 classes
    wine.safetensors           sklearn.datasets.load_wine            178 x 13,  3 classes
    breast_cancer.safetensors  sklearn.datasets.load_breast_cancer   569 x 30,  2 classes

Nothing is downloaded: these four data sets are bundled inside the
scikit-learn package.  Rows are in scikit-learn's order (no shuffling, no
normalisation).  Each file holds exactly two tensors:

    x  digits: U8 [1797, 64], the 8x8 pixel counts 0..16 (sklearn's float64
       values are all integers; the script asserts that and that
       x.astype(float64) == sklearn's data exactly).
       others: F32 [n, d] = np.float32(sklearn's float64 values).
    y  U8 [n], the class index (sklearn's target).

and this metadata (all values are strings, as safetensors requires):

    name       dataset name (the file stem)
    title      short human title
    features   JSON list of feature names (sklearn's feature_names)
    classes    JSON list of class names as strings (sklearn's target_names)
    source     where the data comes from (citation, DOI)
    licence    licence of the data
    generator  "scripts/datasets.py with scikit-learn X, numpy Y, safetensors Z"

The output is deterministic: running the script twice gives byte-identical
files (the script prints each file's size and sha256).  safetensors 0.8.0
writes the metadata keys in a random order, so after save_file the script
rewrites the header with the metadata keys sorted (same length, nothing else
changed; see canonicalize_header).  After writing, every
file is loaded back with safetensors.numpy.load_file and compared exactly to
scikit-learn; shapes, dtypes and class counts are printed.  Licences and
citations of the data are in assets/datasets/LICENSE.md.

How to run (versions used for the committed files; Python 3.11):

    python3 -m venv .venv/datasets
    .venv/datasets/bin/pip install scikit-learn==1.9.1 numpy==2.4.6 safetensors==0.8.0
    .venv/datasets/bin/python scripts/datasets.py

The script refuses to run with other versions of these three packages unless
--any-version is given (the files would then record the versions used).
"""

import argparse
import hashlib
import json
import os
import struct
import sys
from pathlib import Path

import numpy as np
import safetensors
import sklearn
from safetensors import safe_open
from safetensors.numpy import load_file, save_file
from sklearn import datasets

PINNED = {"scikit-learn": "1.9.1", "numpy": "2.4.6", "safetensors": "0.8.0"}
INSTALLED = {
    "scikit-learn": sklearn.__version__,
    "numpy": np.__version__,
    "safetensors": safetensors.__version__,
}

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "assets" / "datasets"

CC_BY = "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)"
LICENCE = (
    CC_BY + ", as listed by the UCI Machine Learning Repository; "
    "taken from scikit-learn's bundled copy (scikit-learn: BSD-3-Clause). "
    "See assets/datasets/LICENSE.md"
)

# name -> (loader, title, source, shape, number of classes)
DATASETS = {
    "digits": (
        datasets.load_digits,
        "Handwritten digits (8×8)",
        "E. Alpaydin and C. Kaynak (1998). Optical Recognition of Handwritten "
        "Digits. UCI Machine Learning Repository. https://doi.org/10.24432/C50P49 "
        "(the test set, optdigits.tes, as bundled in scikit-learn)",
        (1797, 64),
        10,
    ),
    "iris": (
        datasets.load_iris,
        "Iris",
        'R. A. Fisher (1936). "The use of multiple measurements in taxonomic '
        'problems", Annual Eugenics 7, Part II, 179-188. UCI Machine Learning '
        "Repository: Iris, donated by Michael Marshall (1988). "
        "https://doi.org/10.24432/C56C76 (scikit-learn's copy follows Fisher's "
        "paper, as R does: rows 35 and 38 differ from UCI's iris.data)",
        (150, 4),
        3,
    ),
    "wine": (
        datasets.load_wine,
        "Wine",
        "S. Aeberhard and M. Forina. Wine. UCI Machine Learning Repository. "
        "https://doi.org/10.24432/C5PC7J. Original owners: M. Forina et al., "
        "PARVUS, Institute of Pharmaceutical and Food Analysis and Technologies, "
        "Genoa, Italy",
        (178, 13),
        3,
    ),
    "breast_cancer": (
        datasets.load_breast_cancer,
        "Breast cancer (Wisconsin diagnostic)",
        "W. H. Wolberg, W. N. Street and O. L. Mangasarian (1995). Breast Cancer "
        "Wisconsin (Diagnostic). UCI Machine Learning Repository. "
        "https://doi.org/10.24432/C5DW2B (donor: Nick Street)",
        (569, 30),
        2,
    ),
}


def build(name):
    """Return (tensors, metadata, bunch) for one dataset."""
    loader, title, source, shape, n_classes = DATASETS[name]
    bunch = loader()
    data, target = bunch.data, bunch.target
    assert data.dtype == np.float64 and data.shape == shape, (data.dtype, data.shape)
    assert target.shape == (shape[0],), target.shape
    assert np.issubdtype(target.dtype, np.integer)
    assert target.min() == 0 and target.max() == n_classes - 1
    assert np.array_equal(np.unique(target), np.arange(n_classes))
    assert np.all(np.isfinite(data))

    if name == "digits":
        assert np.all(data == np.round(data)), "digits pixels are not integers"
        assert data.min() >= 0 and data.max() <= 16, (data.min(), data.max())
        x = data.astype(np.uint8)
        assert np.array_equal(x.astype(np.float64), data)
    else:
        x = data.astype(np.float32)
    y = target.astype(np.uint8)
    assert np.array_equal(y.astype(target.dtype), target)

    features = [str(f) for f in bunch.feature_names]
    classes = [str(c) for c in bunch.target_names]
    assert len(features) == shape[1] and len(set(features)) == shape[1]
    assert len(classes) == n_classes
    if name == "digits":
        assert features[0] == "pixel_0_0" and features[-1] == "pixel_7_7"
        assert classes == [str(i) for i in range(10)]

    generator = "scripts/datasets.py with scikit-learn {}, numpy {}, safetensors {}".format(
        INSTALLED["scikit-learn"], INSTALLED["numpy"], INSTALLED["safetensors"]
    )
    metadata = {
        "name": name,
        "title": title,
        "features": json.dumps(features, ensure_ascii=False),
        "classes": json.dumps(classes, ensure_ascii=False),
        "source": source,
        "licence": LICENCE,
        "generator": generator,
    }
    return {"x": np.ascontiguousarray(x), "y": np.ascontiguousarray(y)}, metadata, bunch


def canonicalize_header(path):
    """Rewrite the header of a file written by save_file with sorted metadata keys.

    safetensors 0.8.0 keeps __metadata__ in a Rust HashMap and writes its keys
    in a random order on each run (safetensors/safetensors issue #584), so two
    runs give different bytes.  The keys are re-ordered here, lexicographically
    (as the proposed upstream fix, PR #790, does).  The header keeps its
    length and layout; the script first checks that serialising the parsed
    header in its original order reproduces the written bytes exactly, so only
    the key order changes.
    """
    blob = bytearray(path.read_bytes())
    (n,) = struct.unpack("<Q", blob[:8])
    raw = bytes(blob[8 : 8 + n])
    text = raw.decode("utf-8").rstrip(" ")

    def dump(obj):
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))

    # Python dicts keep insertion order, so this parses the header as written.
    header = json.loads(text)
    assert dump(header) == text, "header does not round-trip through json"
    meta = header["__metadata__"]
    ordered = {"__metadata__": dict(sorted(meta.items()))}
    ordered.update((k, v) for k, v in header.items() if k != "__metadata__")
    new = dump(ordered).encode("utf-8")
    assert len(new) == len(text.encode("utf-8"))
    new = new + b" " * (n - len(new))
    blob[8 : 8 + n] = new
    path.write_bytes(bytes(blob))


def verify(name, path, tensors, metadata, bunch):
    """Load the written file back and compare it exactly to scikit-learn."""
    loaded = load_file(str(path))
    assert sorted(loaded) == ["x", "y"], sorted(loaded)
    x, y = loaded["x"], loaded["y"]
    want_dtype = np.uint8 if name == "digits" else np.float32
    assert x.dtype == want_dtype and x.shape == bunch.data.shape, (x.dtype, x.shape)
    assert y.dtype == np.uint8 and y.shape == bunch.target.shape, (y.dtype, y.shape)
    if name == "digits":
        assert np.array_equal(x.astype(np.float64), bunch.data)
    else:
        assert np.array_equal(x, bunch.data.astype(np.float32))
        # float32 is the nearest value: converting back is within half an ulp.
        assert np.array_equal(x.astype(np.float64).astype(np.float32), x)
    assert np.array_equal(y.astype(np.int64), bunch.target)
    with safe_open(str(path), framework="numpy") as f:
        assert f.metadata() == metadata, "metadata differs after reading back"
        assert sorted(f.keys()) == ["x", "y"]
    assert json.loads(metadata["features"]) == [str(s) for s in bunch.feature_names]
    assert json.loads(metadata["classes"]) == [str(s) for s in bunch.target_names]
    counts = np.bincount(y, minlength=len(bunch.target_names))
    classes = json.loads(metadata["classes"])
    print(
        "  verified {}: x {} {}, y {} {}, classes {}".format(
            name,
            x.dtype,
            list(x.shape),
            y.dtype,
            list(y.shape),
            ", ".join("{}={}".format(c, int(n)) for c, n in zip(classes, counts)),
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output folder (default assets/datasets)")
    parser.add_argument("--any-version", action="store_true", help="allow unpinned package versions")
    args = parser.parse_args()

    if INSTALLED != PINNED:
        msg = "package versions {} differ from the pinned {}".format(INSTALLED, PINNED)
        if not args.any_version:
            sys.exit(msg + " (use --any-version to go on anyway)")
        print("warning: " + msg, file=sys.stderr)

    args.out.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in DATASETS:
        tensors, metadata, bunch = build(name)
        path = args.out / "{}.safetensors".format(name)
        save_file(tensors, str(path), metadata=metadata)
        canonicalize_header(path)
        os.chmod(path, 0o644)  # save_file creates the file 0600
        blob = path.read_bytes()
        total += len(blob)
        print("{:<26} {:>7} bytes  sha256 {}".format(path.name, len(blob), hashlib.sha256(blob).hexdigest()))
        verify(name, path, tensors, metadata, bunch)
    print("total {} bytes in {} files".format(total, len(DATASETS)))


if __name__ == "__main__":
    main()
