"""Block-scaled FP4 GEMMs for sm_100a written in NVIDIA's CuTe DSL.

These kernels are not ours in any other sense than that we wrote them with
the DSL's documented API: their descriptors, shared-memory layouts,
tensor-memory layouts, scale-factor copies and MMA instructions come from
NVIDIA's compiler. They are compiled here (no GPU needed), imported into
MLIR 22 by nvfp4_testing.cutedsl, and executed on Hopper under
nvfp4-emulate-tcgen05, so that an outside party's reading of the tcgen05
ISA checks ours (docs/design/cutedsl.md).

    D[m, n] = sum_k A[m, k] * SFA[m, k / V] * B[n, k] * SFB[n, k / V]

A is M x K and B is N x K, both K-major FP4 (E2M1, two values a byte, the
even element in the low nibble); the scale factors are E4M3 (NVFP4, V = 16)
or E8M0 (MXFP4, V = 32) in the 128x4 swizzled layout (the DSL's
BlockScaledBasicChunk, the same as docs/spec.md's); D is M x N row-major f32.

Warp roles (one CTA, 192 threads): warps 0-3 the epilogue (they also
allocate tensor memory), warp 4 issues the MMAs, warp 5 the TMA loads.
`pair=True` makes the kernel a cluster of two CTAs sharing each MMA
(`cta_group::2`, an M = 256 tile, 128 rows in each CTA's tensor memory):
the TMA loads are the DSL's 2-SM loads with multicast masks, the leader CTA
(cluster rank 0) issues the MMAs and commits them to both CTAs' barriers,
both allocate tensor memory as a pair.

Every role walks the output tiles with the DSL's static persistent tile
scheduler: over one CTA per tile, or with `persistent=True` over at most
`max_ctas` CTAs, each then computing several tiles (the accumulator's
tensor memory handed between the MMA warp and the epilogue through an
mbarrier pair, the operand ring running on across tiles).
"""

from typing import Tuple

import cutlass
import cutlass.cute as cute
import cutlass.pipeline as pipeline
import cutlass.utils as utils
import cutlass.utils.blackwell_helpers as sm100_utils
import cutlass.utils.blockscaled_layout as blockscaled_utils
from cutlass.cute.nvgpu import OperandMajorMode, cpasync, tcgen05

WARP = 32
EPILOGUE_WARPS = (0, 1, 2, 3)
MMA_WARP = 4
TMA_WARP = 5
THREADS = WARP * 6
# The K extent of one pipeline stage, in MMA instructions (64 FP4 values each).
MMAS_PER_STAGE = 4


class BlockScaledGemm:
    """D = (A x SFA) (B x SFB)^T for one fixed problem shape."""

    def __init__(
        self,
        sf_vec_size: int,
        tile_n: int = 128,
        stages: int = 3,
        persistent: bool = False,
        max_ctas: int = 8,
        pair: bool = False,
    ):
        assert sf_vec_size in (16, 32)
        assert tile_n in (64, 128, 256)
        self.sf_vec_size = sf_vec_size
        self.sf_dtype = cutlass.Float8E4M3FN if sf_vec_size == 16 else cutlass.Float8E8M0FNU
        assert not (pair and tile_n == 64), "a CTA pair takes N = 128 or 256"
        self.pair = pair
        self.cluster_m = 2 if pair else 1
        # The MMA's tile: M = 128 per CTA.
        self.tile_mn = (128 * self.cluster_m, tile_n)
        self.stages = stages
        self.persistent = persistent
        self.max_ctas = max_ctas
        self.cta_group = tcgen05.CtaGroup.TWO if pair else tcgen05.CtaGroup.ONE
        self.acc_dtype = cutlass.Float32
        # Named barriers 1 and 2 (0 is __syncthreads).
        self.epilogue_barrier = pipeline.NamedBarrier(
            barrier_id=1, num_threads=WARP * len(EPILOGUE_WARPS)
        )
        self.tmem_barrier = pipeline.NamedBarrier(
            barrier_id=2, num_threads=WARP * (len(EPILOGUE_WARPS) + 1)
        )
        # Tensor memory: the accumulator's tile_n columns, then SFA's and SFB's
        # (one 32-bit column per 32 rows and MMA of the stage).
        self.sfa_cols = (128 // 32) * MMAS_PER_STAGE
        self.sfb_cols = (-(-tile_n // 128) * 128 // 32) * MMAS_PER_STAGE
        used = tile_n + self.sfa_cols + self.sfb_cols
        self.tmem_cols = 32
        while self.tmem_cols < used:
            self.tmem_cols *= 2

    def _tiled_mma(self, mn, cta_group):
        return sm100_utils.make_blockscaled_trivial_tiled_mma(
            cutlass.Float4E2M1FN,
            OperandMajorMode.K,
            OperandMajorMode.K,
            self.sf_dtype,
            self.sf_vec_size,
            cta_group,
            mn,
        )

    @cute.jit
    def __call__(
        self,
        a_ptr: cute.Pointer,
        b_ptr: cute.Pointer,
        sfa_ptr: cute.Pointer,
        sfb_ptr: cute.Pointer,
        d_ptr: cute.Pointer,
        mnk: cutlass.Constexpr,
    ):
        m, n, k = mnk
        a = cute.make_tensor(a_ptr, cute.make_ordered_layout((m, k, 1), order=(1, 0, 2)))
        b = cute.make_tensor(b_ptr, cute.make_ordered_layout((n, k, 1), order=(1, 0, 2)))
        d = cute.make_tensor(d_ptr, cute.make_ordered_layout((m, n, 1), order=(1, 0, 2)))
        sfa = cute.make_tensor(
            sfa_ptr, blockscaled_utils.tile_atom_to_shape_SF(a.shape, self.sf_vec_size)
        )
        sfb = cute.make_tensor(
            sfb_ptr, blockscaled_utils.tile_atom_to_shape_SF(b.shape, self.sf_vec_size)
        )

        tiled_mma = self._tiled_mma(self.tile_mn, self.cta_group)
        # The scale factors of B are copied in 128-row atoms whatever the
        # tile, by each CTA for itself.
        sfb_mn = (128, cute.round_up(self.tile_mn[1], 128))
        tiled_mma_sfb = self._tiled_mma(sfb_mn, tcgen05.CtaGroup.ONE)
        mma_k = cute.size(tiled_mma.shape_mnk, mode=[2])
        self.mma_tiler = (*self.tile_mn, mma_k * MMAS_PER_STAGE)
        self.mma_tiler_sfb = (*sfb_mn, mma_k * MMAS_PER_STAGE)

        self.sA_layout = sm100_utils.make_smem_layout_a(
            tiled_mma, self.mma_tiler, cutlass.Float4E2M1FN, self.stages
        )
        self.sB_layout = sm100_utils.make_smem_layout_b(
            tiled_mma, self.mma_tiler, cutlass.Float4E2M1FN, self.stages
        )
        self.sSFA_layout = blockscaled_utils.make_smem_layout_sfa(
            tiled_mma, self.mma_tiler, self.sf_vec_size, self.stages
        )
        self.sSFB_layout = blockscaled_utils.make_smem_layout_sfb(
            tiled_mma, self.mma_tiler, self.sf_vec_size, self.stages
        )

        # TMA loads: the cluster's layout (V: the CTAs of one MMA, M, N, K).
        cluster = (self.cluster_m, 1)
        self.cluster_vmnk = cute.tiled_divide(
            cute.make_layout((*cluster, 1)), (tiled_mma.thr_id.shape,)
        )
        self.cluster_sfb_vmnk = cute.tiled_divide(
            cute.make_layout((*cluster, 1)), (tiled_mma_sfb.thr_id.shape,)
        )
        load_a = sm100_utils.cluster_shape_to_tma_atom_A(cluster, tiled_mma.thr_id)
        load_b = sm100_utils.cluster_shape_to_tma_atom_B(cluster, tiled_mma.thr_id)
        load_sfb = sm100_utils.cluster_shape_to_tma_atom_SFB(cluster, tiled_mma.thr_id)
        one = (None, None, None, 0)
        tma_a, gA = cute.nvgpu.make_tiled_tma_atom_A(
            load_a, a, cute.slice_(self.sA_layout, one), self.mma_tiler, tiled_mma,
            self.cluster_vmnk.shape,
        )
        tma_b, gB = cute.nvgpu.make_tiled_tma_atom_B(
            load_b, b, cute.slice_(self.sB_layout, one), self.mma_tiler, tiled_mma,
            self.cluster_vmnk.shape,
        )
        tma_sfa, gSFA = cute.nvgpu.make_tiled_tma_atom_A(
            load_a, sfa, cute.slice_(self.sSFA_layout, one), self.mma_tiler, tiled_mma,
            self.cluster_vmnk.shape, internal_type=cutlass.Int16,
        )
        tma_sfb, gSFB = cute.nvgpu.make_tiled_tma_atom_B(
            load_sfb, sfb, cute.slice_(self.sSFB_layout, one), self.mma_tiler_sfb,
            tiled_mma_sfb, self.cluster_sfb_vmnk.shape, internal_type=cutlass.Int16,
        )
        # Both CTAs' loads of a stage arrive on the leader's barrier.
        self.stage_bytes = cute.size(tiled_mma.thr_id.shape) * (
            cute.size_in_bytes(cutlass.Float4E2M1FN, cute.slice_(self.sA_layout, one))
            + cute.size_in_bytes(cutlass.Float4E2M1FN, cute.slice_(self.sB_layout, one))
            + cute.size_in_bytes(self.sf_dtype, cute.slice_(self.sSFA_layout, one))
            + cute.size_in_bytes(self.sf_dtype, cute.slice_(self.sSFB_layout, one))
        )

        # Tiles counted per CTA (128 rows of M each).
        tiles = (cute.ceil_div(m, 128), cute.ceil_div(n, self.tile_mn[1]), 1)
        self.sched = utils.PersistentTileSchedulerParams(tiles, (self.cluster_m, 1, 1))
        # One cluster per tile, or at most max_ctas CTAs walking the tiles.
        clusters = (self.max_ctas if self.persistent else tiles[0] * tiles[1]) // self.cluster_m
        grid = utils.StaticPersistentTileScheduler.get_grid_shape(self.sched, clusters)

        @cute.struct
        class Storage:
            full: cute.struct.MemRange[cutlass.Int64, self.stages]
            empty: cute.struct.MemRange[cutlass.Int64, self.stages]
            acc_full: cute.struct.MemRange[cutlass.Int64, 1]
            acc_empty: cute.struct.MemRange[cutlass.Int64, 1]
            tmem_dealloc: cutlass.Int64
            tmem_base: cutlass.Int32
            sA: cute.struct.Align[
                cute.struct.MemRange[cutlass.Float4E2M1FN, cute.cosize(self.sA_layout.outer)], 1024
            ]
            sB: cute.struct.Align[
                cute.struct.MemRange[cutlass.Float4E2M1FN, cute.cosize(self.sB_layout.outer)], 1024
            ]
            sSFA: cute.struct.Align[
                cute.struct.MemRange[self.sf_dtype, cute.cosize(self.sSFA_layout)], 1024
            ]
            sSFB: cute.struct.Align[
                cute.struct.MemRange[self.sf_dtype, cute.cosize(self.sSFB_layout)], 1024
            ]

        self.storage = Storage
        self.kernel(
            tiled_mma, tiled_mma_sfb, tma_a, gA, tma_b, gB, tma_sfa, gSFA, tma_sfb, gSFB, d,
            self.sA_layout, self.sB_layout, self.sSFA_layout, self.sSFB_layout, self.sched,
            self.cluster_vmnk, self.cluster_sfb_vmnk,
        ).launch(grid=grid, block=[THREADS, 1, 1], cluster=(self.cluster_m, 1, 1))

    @cute.kernel
    def kernel(
        self,
        tiled_mma: cute.TiledMma,
        tiled_mma_sfb: cute.TiledMma,
        tma_a: cute.CopyAtom,
        mA: cute.Tensor,
        tma_b: cute.CopyAtom,
        mB: cute.Tensor,
        tma_sfa: cute.CopyAtom,
        mSFA: cute.Tensor,
        tma_sfb: cute.CopyAtom,
        mSFB: cute.Tensor,
        mD: cute.Tensor,
        sA_layout: cute.ComposedLayout,
        sB_layout: cute.ComposedLayout,
        sSFA_layout: cute.Layout,
        sSFB_layout: cute.Layout,
        sched_params: utils.PersistentTileSchedulerParams,
        cluster_vmnk: cute.Layout,
        cluster_sfb_vmnk: cute.Layout,
    ):
        warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
        tidx, _, _ = cute.arch.thread_idx()
        bidx, _, _ = cute.arch.block_idx()
        pair_size = cute.size(tiled_mma.thr_id.shape)
        # This CTA's place in its MMA (0: the leader, which issues it).
        v = bidx % pair_size
        leader = v == 0
        rank = cute.arch.make_warp_uniform(cute.arch.block_idx_in_cluster())
        coord = cluster_vmnk.get_flat_coord(rank)
        coord_sfb = cluster_sfb_vmnk.get_flat_coord(rank)
        cluster = (self.cluster_m, 1)

        smem = utils.SmemAllocator()
        st = smem.allocate(self.storage)
        ab = pipeline.PipelineTmaUmma.create(
            barrier_storage=st.full.data_ptr(),
            num_stages=self.stages,
            producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
            consumer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread, 1),
            tx_count=self.stage_bytes,
            cta_layout_vmnk=cluster_vmnk,
            defer_sync=True,
        )
        acc = pipeline.PipelineUmmaAsync.create(
            barrier_storage=st.acc_full.data_ptr(),
            num_stages=1,
            producer_group=pipeline.CooperativeGroup(pipeline.Agent.Thread),
            consumer_group=pipeline.CooperativeGroup(
                pipeline.Agent.Thread, WARP * len(EPILOGUE_WARPS) * self.cluster_m
            ),
            cta_layout_vmnk=cluster_vmnk,
            defer_sync=True,
        )
        tmem = utils.TmemAllocator(
            st.tmem_base,
            barrier_for_retrieve=self.tmem_barrier,
            allocator_warp_id=EPILOGUE_WARPS[0],
            is_two_cta=self.pair,
            two_cta_tmem_dealloc_mbar_ptr=st.tmem_dealloc if self.pair else None,
        )
        pipeline.pipeline_init_arrive(cluster_shape_mn=cluster, is_relaxed=True)
        masks = [None] * 4
        if cutlass.const_expr(self.pair):
            masks = [
                cpasync.create_tma_multicast_mask(cluster_vmnk, coord, mcast_mode=2),
                cpasync.create_tma_multicast_mask(cluster_vmnk, coord, mcast_mode=1),
                cpasync.create_tma_multicast_mask(cluster_vmnk, coord, mcast_mode=2),
                cpasync.create_tma_multicast_mask(
                    cluster_sfb_vmnk, coord_sfb, mcast_mode=1
                ),
            ]

        sA = st.sA.get_tensor(sA_layout.outer, swizzle=sA_layout.inner)
        sB = st.sB.get_tensor(sB_layout.outer, swizzle=sB_layout.inner)
        sSFA = st.sSFA.get_tensor(sSFA_layout)
        sSFB = st.sSFB.get_tensor(sSFB_layout)

        # Global tiles: (bM, bK, RestM, RestK, RestL) and alike.
        gA = cute.local_tile(mA, cute.slice_(self.mma_tiler, (None, 0, None)), (None, None, None))
        gB = cute.local_tile(mB, cute.slice_(self.mma_tiler, (0, None, None)), (None, None, None))
        gSFA = cute.local_tile(
            mSFA, cute.slice_(self.mma_tiler, (None, 0, None)), (None, None, None)
        )
        gSFB = cute.local_tile(
            mSFB, cute.slice_(self.mma_tiler_sfb, (0, None, None)), (None, None, None)
        )
        gD = cute.local_tile(mD, cute.slice_(self.mma_tiler, (None, None, 0)), (None, None, None))
        k_tiles = cute.size(gA, mode=[3])

        thr_mma = tiled_mma.get_slice(v)
        thr_mma_sfb = tiled_mma_sfb.get_slice(v)
        tCgA = thr_mma.partition_A(gA)
        tCgB = thr_mma.partition_B(gB)
        tCgSFA = thr_mma.partition_A(gSFA)
        tCgSFB = thr_mma_sfb.partition_B(gSFB)
        tCgD = thr_mma.partition_C(gD)

        # The CTAs a load is multicast to: along N for A, along M for B.
        a_ctas = cute.make_layout(cute.slice_(cluster_vmnk, (0, 0, None, 0)).shape)
        b_ctas = cute.make_layout(cute.slice_(cluster_vmnk, (0, None, 0, 0)).shape)
        sfb_ctas = cute.make_layout(cute.slice_(cluster_sfb_vmnk, (0, None, 0, 0)).shape)
        tAsA, tAgA = cpasync.tma_partition(
            tma_a, coord[2], a_ctas, cute.group_modes(sA, 0, 3), cute.group_modes(tCgA, 0, 3)
        )
        tBsB, tBgB = cpasync.tma_partition(
            tma_b, coord[1], b_ctas, cute.group_modes(sB, 0, 3), cute.group_modes(tCgB, 0, 3)
        )
        tAsSFA, tAgSFA = cpasync.tma_partition(
            tma_sfa, coord[2], a_ctas, cute.group_modes(sSFA, 0, 3),
            cute.group_modes(tCgSFA, 0, 3),
        )
        tAsSFA = cute.filter_zeros(tAsSFA)
        tAgSFA = cute.filter_zeros(tAgSFA)
        tBsSFB, tBgSFB = cpasync.tma_partition(
            tma_sfb, coord_sfb[1], sfb_ctas, cute.group_modes(sSFB, 0, 3),
            cute.group_modes(tCgSFB, 0, 3),
        )
        tBsSFB = cute.filter_zeros(tBsSFB)
        tBgSFB = cute.filter_zeros(tBgSFB)

        tCrA = tiled_mma.make_fragment_A(sA)
        tCrB = tiled_mma.make_fragment_B(sB)
        acc_shape = tiled_mma.partition_shape_C(self.mma_tiler[:2])
        tCtAcc_fake = tiled_mma.make_fragment_C(acc_shape)

        pipeline.pipeline_init_wait(cluster_shape_mn=cluster)

        if warp == TMA_WARP:
            state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, self.stages)
            sched = utils.StaticPersistentTileScheduler.create(
                sched_params, cute.arch.block_idx(), cute.arch.grid_dim()
            )
            work = sched.initial_work_tile_info()
            while work.is_valid_tile:
                tm, tn = work.tile_idx[0] // pair_size, work.tile_idx[1]
                ga = tAgA[(None, tm, None, 0)]
                gb = tBgB[(None, tn, None, 0)]
                gsfa = tAgSFA[(None, tm, None, 0)]
                gsfb = tBgSFB[(None, self._sfb_tile(tn), None, 0)]
                for kt in cutlass.range(0, k_tiles, 1, unroll=1):
                    ab.producer_acquire(state)
                    bar = ab.producer_get_barrier(state)
                    cute.copy(tma_a, ga[(None, kt)], tAsA[(None, state.index)], tma_bar_ptr=bar,
                              mcast_mask=masks[0])
                    cute.copy(tma_b, gb[(None, kt)], tBsB[(None, state.index)], tma_bar_ptr=bar,
                              mcast_mask=masks[1])
                    cute.copy(tma_sfa, gsfa[(None, kt)], tAsSFA[(None, state.index)],
                              tma_bar_ptr=bar, mcast_mask=masks[2])
                    cute.copy(tma_sfb, gsfb[(None, kt)], tBsSFB[(None, state.index)],
                              tma_bar_ptr=bar, mcast_mask=masks[3])
                    state.advance()
                sched.advance_to_next_work()
                work = sched.get_current_work()
            ab.producer_tail(state)

        if warp == MMA_WARP:
            tmem.wait_for_alloc()
            acc_base = tmem.retrieve_ptr(self.acc_dtype)
            tCtAcc = cute.make_tensor(acc_base, tCtAcc_fake.layout)
            sfa_ptr = cute.recast_ptr(acc_base + self.tile_mn[1], dtype=self.sf_dtype)
            tCtSFA = cute.make_tensor(
                sfa_ptr,
                blockscaled_utils.make_tmem_layout_sfa(
                    tiled_mma, self.mma_tiler, self.sf_vec_size,
                    cute.slice_(sSFA_layout, (None, None, None, 0)),
                ),
            )
            sfb_ptr = cute.recast_ptr(
                acc_base + self.tile_mn[1] + self.sfa_cols, dtype=self.sf_dtype
            )
            tCtSFB_layout = blockscaled_utils.make_tmem_layout_sfb(
                tiled_mma, self.mma_tiler, self.sf_vec_size,
                cute.slice_(sSFB_layout, (None, None, None, 0)),
            )
            tCtSFB = cute.make_tensor(sfb_ptr, tCtSFB_layout)
            copy_sfa, tsSFA, ttSFA = self._scale_copy(sSFA, tCtSFA)
            copy_sfb, tsSFB, ttSFB = self._scale_copy(sSFB, tCtSFB)

            ab_state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, self.stages)
            acc_state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Producer, 1)
            sched = utils.StaticPersistentTileScheduler.create(
                sched_params, cute.arch.block_idx(), cute.arch.grid_dim()
            )
            work = sched.initial_work_tile_info()
            while work.is_valid_tile:
                tn = work.tile_idx[1]
                if leader:
                    acc.producer_acquire(acc_state)
                # A 64-wide tile reads the half of SFB's 128-row atom that is its own.
                tCtSFB_tile = tCtSFB
                if cutlass.const_expr(self.tile_mn[1] == 64):
                    shifted = cute.recast_ptr(
                        acc_base + self.tile_mn[1] + self.sfa_cols
                        + cutlass.Int32((tn % 2) * 2),
                        dtype=self.sf_dtype,
                    )
                    tCtSFB_tile = cute.make_tensor(shifted, tCtSFB_layout)
                tiled_mma.set(tcgen05.Field.ACCUMULATE, False)
                for kt in range(k_tiles):
                    if leader:
                        ab.consumer_wait(ab_state)
                        stage = (None, None, None, None, ab_state.index)
                        cute.copy(copy_sfa, tsSFA[stage], ttSFA)
                        cute.copy(copy_sfb, tsSFB[stage], ttSFB)
                        for kb in cutlass.range(cute.size(tCrA, mode=[2]), unroll_full=True):
                            tiled_mma.set(tcgen05.Field.SFA, tCtSFA[(None, None, kb)].iterator)
                            tiled_mma.set(
                                tcgen05.Field.SFB, tCtSFB_tile[(None, None, kb)].iterator
                            )
                            cute.gemm(
                                tiled_mma,
                                tCtAcc,
                                tCrA[(None, None, kb, ab_state.index)],
                                tCrB[(None, None, kb, ab_state.index)],
                                tCtAcc,
                            )
                            tiled_mma.set(tcgen05.Field.ACCUMULATE, True)
                        ab.consumer_release(ab_state)
                    ab_state.advance()
                if leader:
                    acc.producer_commit(acc_state)
                acc_state.advance()
                sched.advance_to_next_work()
                work = sched.get_current_work()
            acc.producer_tail(acc_state)

        if warp < MMA_WARP:
            tmem.allocate(self.tmem_cols)
            tmem.wait_for_alloc()
            acc_base = tmem.retrieve_ptr(self.acc_dtype)
            tCtAcc = cute.make_tensor(acc_base, tCtAcc_fake.layout)
            # Each thread one accumulator row (its TMEM lane), 32 columns a load.
            t2r_atom = cute.make_copy_atom(
                tcgen05.Ld32x32bOp(tcgen05.Repetition.x32), self.acc_dtype
            )
            tAcc = tCtAcc[((None, None), 0, 0)]
            t2r = tcgen05.make_tmem_copy(t2r_atom, tAcc)
            thr = t2r.get_slice(tidx)
            tTR_tAcc = thr.partition_S(tAcc)
            acc_state = pipeline.make_pipeline_state(pipeline.PipelineUserType.Consumer, 1)
            sched = utils.StaticPersistentTileScheduler.create(
                sched_params, cute.arch.block_idx(), cute.arch.grid_dim()
            )
            work = sched.initial_work_tile_info()
            while work.is_valid_tile:
                gd = tCgD[((None, None), 0, 0, work.tile_idx[0] // pair_size, work.tile_idx[1], 0)]
                tTR_gD = thr.partition_D(gd)
                tTR_rAcc = cute.make_rmem_tensor(tTR_gD.shape, self.acc_dtype)
                acc.consumer_wait(acc_state)
                cute.copy(t2r, tTR_tAcc, tTR_rAcc)
                cute.arch.fence_view_async_tmem_load()
                acc.consumer_release(acc_state)
                acc_state.advance()
                cute.autovec_copy(tTR_rAcc, tTR_gD)
                sched.advance_to_next_work()
                work = sched.get_current_work()
            tmem.relinquish_alloc_permit()
            self.epilogue_barrier.arrive_and_wait()
            tmem.free(acc_base)

    def _sfb_tile(self, n_tile):
        if cutlass.const_expr(self.tile_mn[1] == 64):
            return n_tile // 2
        return n_tile

    def _scale_copy(self, sSF, tSF):
        """tcgen05.cp of one stage's scale factors, smem -> tmem, 4 warps of 32 lanes."""
        s = cute.filter_zeros(sSF)
        t = cute.filter_zeros(tSF)
        atom = cute.make_copy_atom(tcgen05.Cp4x32x128bOp(self.cta_group), self.sf_dtype)
        copy = tcgen05.make_s2t_copy(atom, t)
        thr = copy.get_slice(0)
        src = tcgen05.get_s2t_smem_desc_tensor(copy, thr.partition_S(s))
        return copy, src, thr.partition_D(t)
