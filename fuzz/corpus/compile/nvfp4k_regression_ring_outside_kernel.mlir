    %ring = nvfp4k.ring.create : !nvfp4k.ring<3, consumers = 16>
