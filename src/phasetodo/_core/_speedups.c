/* phasetodo._core._speedups: optional C versions of the per-task loops.
 *
 * Each function here has a pure-Python twin in phasetodo._core.native, which
 * is what runs when this module is not built or PHASETODO_PURE=1 is set; the
 * two must give equal results (tests/test_native.py checks them side by side).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "_speedups", "C versions of phasetodo's per-task loops.", -1, NULL,
};

PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&speedups_module); }
