!sched = !nvfp4k.scheduler<mode = masked, groups = 4, rows = 64, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, k_blocks = 2, stream_k = true>

gpu.module @kernels {
  gpu.func @walk(%masked: i64, %n: index) kernel {
    %sched = nvfp4k.scheduler.create %masked : !sched
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %count = nvfp4k.scheduler.count %sched : !sched
    %cur:2 = scf.for %t = %c0 to %count step %c1 iter_args(%g = %c0, %f = %c0) -> (index, index) {
      %tile:7 = nvfp4k.scheduler.tile %sched[%t] from(%g, %f) : !sched
      scf.yield %tile#0, %tile#6 : index, index
    }
    %stale:7 = nvfp4k.scheduler.tile %sched[%c0] from(%cur#0, %cur#1) : !sched
    gpu.return
  }
}
