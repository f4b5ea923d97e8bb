#!/usr/bin/env python3
# Generates dequant measurement kernels: N independent dequants per thread, each
# from its own (q, sw) words, results stored with one 128-bit store.
import sys
import os
funcs = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'dq_funcs.mlir.in')).read()
def kernel(name, fn, T, N):
    L = [f'  gpu.func @{name}(%in: memref<?xi32>, %sc: memref<?xi32>, %out: memref<?xvector<8x{T}>>) kernel attributes {{nvvm.maxntid = array<i32: 128, 1, 1>}} {{',
         '    %t = gpu.thread_id x']
    for i in range(N):
        L.append(f'    %o{i} = arith.constant {i*4096} : index')
        L.append(f'    %a{i} = arith.addi %t, %o{i} : index')
        L.append(f'    %q{i} = memref.load %in[%a{i}] : memref<?xi32>')
        L.append(f'    %s{i} = memref.load %sc[%a{i}] : memref<?xi32>')
        L.append(f'    %r{i}:4 = func.call @{fn}(%q{i}, %s{i}) : (i32, i32) -> (vector<2x{T}>, vector<2x{T}>, vector<2x{T}>, vector<2x{T}>)')
        L.append(f'    %u{i} = vector.shuffle %r{i}#0, %r{i}#1 [0, 1, 2, 3] : vector<2x{T}>, vector<2x{T}>')
        L.append(f'    %v{i} = vector.shuffle %r{i}#2, %r{i}#3 [0, 1, 2, 3] : vector<2x{T}>, vector<2x{T}>')
        L.append(f'    %w{i} = vector.shuffle %u{i}, %v{i} [0, 1, 2, 3, 4, 5, 6, 7] : vector<4x{T}>, vector<4x{T}>')
        L.append(f'    memref.store %w{i}, %out[%a{i}] : memref<?xvector<8x{T}>>')
    L.append('    gpu.return\n  }')
    return '\n'.join(L)
N = int(sys.argv[1])
ks = [kernel(f'k_null_{N}', 'dq_null', 'f16', N), kernel(f'k_bf16spre_{N}', 'dq_bf16s_pre', 'bf16', N), kernel(f'k_f16_{N}', 'dq_f16', 'f16', N), kernel(f'k_bf16s_{N}', 'dq_bf16s', 'bf16', N), kernel(f'k_bf16lut_{N}', 'dq_bf16lut', 'bf16', N)]
print('module attributes {gpu.container_module} {\ngpu.module @dq [#nvvm.target<chip = "sm_90a", features = "+ptx80", O = 3>] {')
print(funcs)
print('\n'.join(ks))
print('}\n}')
