import Testing
import Foundation
@testable import SyncLabKernel

@Test func scratchPrint() {
    for x in [-0.3870370326190542, 526.5111400612118] {
        print("PT", x.bitPattern, DeterministicMath.exp(x).bitPattern, Foundation.exp(x).bitPattern, DeterministicMath.exp(x), Foundation.exp(x))
    }
}
