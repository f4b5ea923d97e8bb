// nvfp4k.fragment_a.load: a sm_90a consumer thread's share of a weight
// stage. Its rows rho = 64 J + 8 (t / 32) + (t % 32) / 4 and rho + 32, the
// 16 code bytes 16 c .. 16 c + 15 of each (c = t % 4), the scale words of
// both rows from the swizzled unit of chunks 2c, 2c + 1 in one 8-byte load,
// one prmt into dequant.fragment_a's byte order, and the masks of rows past
// the tile's and chunks past K in the last stage. What the kernels compute
// with it is checked on the GPU (decode.test, matmul.test: N and K off the
// tiles).
// RUN: nvfp4-opt %s --split-input-file --convert-nvfp4k-to-nvvm --canonicalize --cse | FileCheck %s

// CHECK-LABEL: gpu.func @nvfp4(
// CHECK-SAME:    %[[W:[^:]*]]: memref<2048xi32, {{.*}}>, %[[S:[^:]*]]: memref<256xi32, {{.*}}>, %[[J:[^:]*]]: index, %[[T:[^:]*]]: index, %[[N:[^:]*]]: index, %[[LAST:[^:]*]]: i1
// The thread's rows and chunk pair.
// CHECK:         %[[WARP:.*]] = arith.divui %[[T]], %c32 : index
// CHECK-NEXT:    %[[LANE:.*]] = arith.remui %[[T]], %c32 : index
// CHECK-NEXT:    %[[G:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK-NEXT:    %[[C:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK-NEXT:    %[[W8:.*]] = arith.muli %[[WARP]], %c8 : index
// CHECK-NEXT:    %[[J64:.*]] = arith.muli %[[J]], %c64 : index
// CHECK-NEXT:    %[[R0:.*]] = arith.addi %[[J64]], %[[W8]] : index
// CHECK-NEXT:    %[[RHO:.*]] = arith.addi %[[R0]], %[[G]] : index
// Code words (rho * 64 + 16 c) / 4 and 512 words (32 rows) on.
// CHECK-NEXT:    %[[C16:.*]] = arith.muli %[[C]], %c16 : index
// CHECK-NEXT:    %[[RB:.*]] = arith.muli %[[RHO]], %c64 : index
// CHECK-NEXT:    %[[CB:.*]] = arith.addi %[[RB]], %[[C16]] : index
// CHECK-NEXT:    %[[CW0:.*]] = arith.divui %[[CB]], %c4 : index
// CHECK-NEXT:    %[[CW1:.*]] = arith.addi %[[CW0]], %c512 : index
// The scale word: unit c / 2 (512 bytes each), then rho's offset in the
// unit ((rho % 32) * 16 + ((rho % 128) / 32) * 4).
// CHECK-NEXT:    %[[UNIT:.*]] = arith.divui %[[C]], %c2 : index
// CHECK-NEXT:    %[[RM:.*]] = arith.remui %[[RHO]], %c128 : index
// CHECK-NEXT:    %[[RQ:.*]] = arith.divui %[[RM]], %c32 : index
// CHECK-NEXT:    %[[RQ4:.*]] = arith.muli %[[RQ]], %c4 : index
// CHECK-NEXT:    %[[R32:.*]] = arith.remui %[[RHO]], %c32 : index
// CHECK-NEXT:    %[[R16:.*]] = arith.muli %[[R32]], %c16 : index
// CHECK-NEXT:    %[[OFF:.*]] = arith.addi %[[R16]], %[[RQ4]] : index
// CHECK-NEXT:    %[[UB:.*]] = arith.muli %[[UNIT]], %c512 : index
// CHECK-NEXT:    %[[SB:.*]] = arith.addi %[[UB]], %[[OFF]] : index
// CHECK-NEXT:    %[[SW:.*]] = arith.divui %[[SB]], %c4 : index
// prmt selector: bytes lo = 2 (c % 2) and hi = lo + 1 of word 0 (rho) and
// word 1 (rho + 32): lo | (lo + 4) << 4 | hi << 8 | (hi + 4) << 12.
// CHECK-NEXT:    %[[CM:.*]] = arith.remui %[[C]], %c2 : index
// CHECK-NEXT:    %[[LO:.*]] = arith.muli %[[CM]], %c2 : index
// CHECK-NEXT:    %[[HI:.*]] = arith.addi %[[LO]], %c1 : index
// CHECK-NEXT:    %[[HI4:.*]] = arith.addi %[[LO]], %c5 : index
// CHECK-NEXT:    %[[A:.*]] = arith.muli %[[HI4]], %c4096 : index
// CHECK-NEXT:    %[[B:.*]] = arith.muli %[[HI]], %c256 : index
// CHECK-NEXT:    %[[AB:.*]] = arith.addi %[[B]], %[[A]] : index
// CHECK-NEXT:    %[[LO4:.*]] = arith.addi %[[LO]], %c4 : index
// CHECK-NEXT:    %[[D:.*]] = arith.muli %[[LO4]], %c16 : index
// CHECK-NEXT:    %[[E:.*]] = arith.addi %[[LO]], %[[D]] : index
// CHECK-NEXT:    %[[SELI:.*]] = arith.addi %[[E]], %[[AB]] : index
// CHECK-NEXT:    %[[SEL:.*]] = arith.index_cast %[[SELI]] : index to i32
// CHECK-NEXT:    %[[ROW0:.*]] = vector.load %[[W]][%[[CW0]]] {alignment = 16 : i64} : memref<2048xi32, {{.*}}>, vector<4xi32>
// CHECK-NEXT:    %[[ROW1:.*]] = vector.load %[[W]][%[[CW1]]] {alignment = 16 : i64} : memref<2048xi32, {{.*}}>, vector<4xi32>
// CHECK-NEXT:    %[[PAIR:.*]] = vector.load %[[S]][%[[SW]]] {alignment = 8 : i64} : memref<256xi32, {{.*}}>, vector<2xi32>
// CHECK-NEXT:    %[[P1:.*]] = vector.extract %[[PAIR]][1]
// CHECK-NEXT:    %[[P0:.*]] = vector.extract %[[PAIR]][0]
// CHECK-NEXT:    %[[BYTES:.*]] = nvvm.prmt <default> %[[SEL]], %[[P0]], %[[P1]] : i32
// Rows: bytes 0, 2 are rho's (0x00FF00FF), 1, 3 rho + 32's (0xFF00FF00).
// CHECK-NEXT:    %[[RHO32:.*]] = arith.addi %[[RHO]], %c32 : index
// CHECK-NEXT:    %[[IN1:.*]] = arith.cmpi slt, %[[RHO32]], %[[N]] : index
// CHECK-NEXT:    %[[M1:.*]] = arith.select %[[IN1]], %c-16711936_i32, %c0_i32 : i32
// CHECK-NEXT:    %[[IN0:.*]] = arith.cmpi slt, %[[RHO]], %[[N]] : index
// CHECK-NEXT:    %[[M0:.*]] = arith.select %[[IN0]], %c16711935_i32, %c0_i32 : i32
// CHECK-NEXT:    %[[RMASK:.*]] = arith.ori %[[M0]], %[[M1]] : i32
// CHECK-NEXT:    %[[BR:.*]] = arith.andi %[[BYTES]], %[[RMASK]] : i32
// The last stage's 2 chunks: the low half is chunk 2c's, the high 2c + 1's.
// CHECK-NEXT:    %[[CH:.*]] = arith.muli %[[C]], %c2 : index
// CHECK-NEXT:    %[[CH1:.*]] = arith.addi %[[CH]], %c1 : index
// CHECK-NEXT:    %[[K1:.*]] = arith.cmpi slt, %[[CH1]], %c2 : index
// CHECK-NEXT:    %[[T1:.*]] = arith.select %[[K1]], %c-65536_i32, %c0_i32 : i32
// CHECK-NEXT:    %[[K0:.*]] = arith.cmpi slt, %[[CH]], %c2 : index
// CHECK-NEXT:    %[[T0:.*]] = arith.select %[[K0]], %c65535_i32, %c0_i32 : i32
// CHECK-NEXT:    %[[TM:.*]] = arith.ori %[[T0]], %[[T1]] : i32
// CHECK-NEXT:    %[[TAIL:.*]] = arith.select %[[LAST]], %[[TM]], %c-1_i32 : i32
// CHECK-NEXT:    %[[OUT:.*]] = arith.andi %[[BR]], %[[TAIL]] : i32
// CHECK:         vector.store %{{.*}} : memref<2x4xi32>, vector<2x4xi32>
// CHECK:         memref.store %[[OUT]]
gpu.module @kernels {
  gpu.func @nvfp4(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<256xi32, #gpu.address_space<workgroup>>, %j: index, %t: index, %n: index, %last: i1, %out: memref<2x4xi32>, %b: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %codes, %bytes = nvfp4k.fragment_a.load %w, %s[%j, %t] rows(%n) tail(%last) {tail_chunks = 2 : i64} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<256xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    vector.store %codes, %out[%c0, %c0] : memref<2x4xi32>, vector<2x4xi32>
    memref.store %bytes, %b[%c0] : memref<1xi32>
    gpu.return
  }
}

// -----

// MXFP4: the one unit, byte c of each row for both chunks (selector
// c | (c + 4) << 4 | c << 8 | (c + 4) << 12); no masks asked for, none.
// CHECK-LABEL: gpu.func @mxfp4(
// CHECK:         %[[C:.*]] = arith.remui %{{.*}}, %c4 : index
// CHECK-NOT:     arith.divui %[[C]], %c2
// CHECK:         %[[C4:.*]] = arith.addi %[[C]], %c4 : index
// CHECK:         nvvm.prmt <default>
// CHECK-NOT:     arith.andi
// CHECK:         gpu.return
gpu.module @kernels {
  gpu.func @mxfp4(%w: memref<2048xi32, #gpu.address_space<workgroup>>, %s: memref<128xi32, #gpu.address_space<workgroup>>, %j: index, %t: index, %out: memref<2x4xi32>, %b: memref<1xi32>) kernel {
    %c0 = arith.constant 0 : index
    %codes, %bytes = nvfp4k.fragment_a.load %w, %s[%j, %t] {mxfp4} : memref<2048xi32, #gpu.address_space<workgroup>>, memref<128xi32, #gpu.address_space<workgroup>> -> vector<2x4xi32>
    vector.store %codes, %out[%c0, %c0] : memref<2x4xi32>, vector<2x4xi32>
    memref.store %bytes, %b[%c0] : memref<1xi32>
    gpu.return
  }
}
