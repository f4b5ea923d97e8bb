"""Prints a grouped matmul of G independent groups (G = argv[1]): each group
16 x 256 tokens against 256 x 256 weights, NVFP4, bf16 out."""
import sys

G = int(sys.argv[1])
A = "tensor<16x256xf4E2M1FN>"
SA = "tensor<1x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>"
B = "tensor<256x256xf4E2M1FN>"
SB = "tensor<2x4x32x4x4xf8E4M3FN, #nvfp4.swizzled_128x4>"
C = "tensor<16x256xbf16>"


def names(p):
    return ", ".join(f"%{p}{g}" for g in range(G))


def types(t):
    return ", ".join([t] * G)


args = [f"%{p}{g}: {t}" for p, t in (("a", A), ("sa", SA), ("b", B), ("sb", SB))
        for g in range(G)]
print(f"func.func @main({', '.join(args)}) -> ({types(C)}) {{")
print(f"  {names('c')} = nvfp4.grouped_matmul independent a({names('a')} : {types(A)}) "
      f"a_scales({names('sa')} : {types(SA)}) b({names('b')} : {types(B)}) "
      f"b_scales({names('sb')} : {types(SB)}) -> {types(C)}")
print(f"  return {names('c')} : {types(C)}")
print("}")
