"""nvfp4_testing: the project's test tooling, kept apart from the user API.

``nvfp4`` is what a user imports (the reference numerics and the compiler
API); this package holds what the test suites and the benchmarks use:

* ``selfcheck``  -- every op against the reference on fresh random data
  (``python3 -m nvfp4_testing.selfcheck``; the lit suites run it);
* ``ptx_decode`` -- an independent decoder of the tcgen05 descriptors and
  TMEM addresses in PTX, written from the PTX ISA tables;
* ``gpu_binary`` -- the PTX / cubin out of MLIR ``gpu.binary`` ops;
* ``sass``       -- cuobjdump SASS of the sm_100a kernels and the check of
  which instructions must be in it.
"""
