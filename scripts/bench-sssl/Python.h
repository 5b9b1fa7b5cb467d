/*
 * Stand-in for <Python.h> so that sssl-ftlsim's C core (ftlsim.c, getaddr.c), which
 * includes Python.h for its SWIG callbacks and error reporting, builds into a plain C
 * program. Only what ftlsim.c names is declared; driver.c defines the functions. The
 * benchmark sets no Python callback, so none of them runs on a normal run; each one that
 * can only be reached by a callback aborts, and PyErr_SetString (the peer's error path)
 * prints the peer's message and exits 1, so nothing fails quietly.
 */
#ifndef BENCH_SSSL_PYTHON_STUB_H
#define BENCH_SSSL_PYTHON_STUB_H
#include <stddef.h>

typedef struct bench_sssl_object PyObject;
extern PyObject *PyExc_RuntimeError;
void PyErr_SetString(PyObject *type, const char *message);
PyObject *PyErr_Occurred(void);
PyObject *Py_BuildValue(const char *format, ...);
PyObject *PyEval_CallObject(PyObject *callable, PyObject *args);
#define Py_DECREF(o) ((void)(o))
#endif
