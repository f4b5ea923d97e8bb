!stream = !nvfp4k.scheduler<mode = independent, groups = 1, rows = 8, weight_tiles = 3, weight_rows = 128, token_tile = 8, granule = 8, group_rows = [8], k_blocks = 5, stream_k = true>
!conv = !nvfp4k.ring<2, consumers = 8, producers = 96>

gpu.module @k {
  gpu.func @ring(%i: index) kernel {
    %ring = nvfp4k.ring.create : !conv
    nvfp4k.ring.arrive %ring[%i] : !conv
    gpu.return
  }

  gpu.func @dequant_codes(%word: i32, %byte: i8, %out: memref<8xf16>) kernel {
    %scale = arith.bitcast %byte : i8 to f8E4M3FN
    %v = nvfp4k.dequant.codes %word, %scale : i32, f8E4M3FN -> vector<8xf16>
    %c0 = arith.constant 0 : index
    vector.store %v, %out[%c0] : memref<8xf16>, vector<8xf16>
    gpu.return
  }

  gpu.func @store_tokens(%v: vector<16xf16>, %r: index, %q: index) kernel {
    %smem = nvfp4k.shared_memory : memref<4096xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %tile = memref.view %smem[%c0][] : memref<4096xi8, #gpu.address_space<workgroup>> to memref<16x128xf16, #gpu.address_space<workgroup>>
    nvfp4k.store_tokens %v, %tile[%r, %q] : vector<16xf16>, memref<16x128xf16, #gpu.address_space<workgroup>>
    gpu.return
  }

  gpu.func @fixup(%t: index, %cta: index, %ctas: index, %n: index, %k0: index, %k1: index, %acc: vector<2xf32>, %ws: i64, %flags: i64, %x: index, %out: memref<2xf32>) kernel {
    %s = nvfp4k.scheduler.create : !stream
    %word = memref.alloca() : memref<1xi32, #gpu.address_space<workgroup>>
    %sum, %owner = nvfp4k.scheduler.fixup %s[%t] cta(%cta, %ctas) count(%n) k(%k0, %k1) %acc workspace(%ws) flags(%flags) flag(%word) thread(%x) {barrier = 1 : i64, threads = 256 : i64} : !stream, vector<2xf32>, memref<1xi32, #gpu.address_space<workgroup>>
    scf.if %owner {
      %c0 = arith.constant 0 : index
      vector.store %sum, %out[%c0] : memref<2xf32>, vector<2xf32>
    }
    gpu.return
  }
}
