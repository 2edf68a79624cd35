//! Polyglot opening books (`.bin`): the 64-bit position key (a Zobrist hash
//! over the published table of 781 random numbers), the 16-byte entries
//! (key, move, weight, learn; big-endian, sorted by key) and the move
//! encoding (castling written as king takes own rook).
//!
//! [`Book::read`] checks the file's shape (a whole number of entries) and
//! sorts entries if the file did not; [`Book::moves`] gives the legal book
//! moves of a position with their weights; [`Book::walk`] plays a weighted
//! random line from a position, the way a match picks its openings.

use shakmaty::{
    CastlingSide, Chess, Color, EnPassantMode, File, Move, Position, Rank, Role, Square,
};

/// The 781 random numbers of the Polyglot key: 768 for pieces (offset
/// `64 * kind + 8 * rank + file`, kind 0 black pawn, 1 white pawn, .., 11
/// white king), 4 for castling rights (white short, white long, black short,
/// black long), 8 for the en-passant file, 1 for White to move.
pub const RANDOM64: [u64; 781] = [
    0x9D39_247E_3377_6D41,
    0x2AF7_3980_05AA_A5C7,
    0x44DB_0150_2462_3547,
    0x9C15_F73E_62A7_6AE2,
    0x7583_4465_489C_0C89,
    0x3290_AC3A_2030_01BF,
    0x0FBB_AD1F_6104_2279,
    0xE83A_908F_F2FB_60CA,
    0x0D7E_765D_5875_5C10,
    0x1A08_3822_CEAF_E02D,
    0x9605_D5F0_E25E_C3B0,
    0xD021_FF5C_D13A_2ED5,
    0x40BD_F15D_4A67_2E32,
    0x0113_5514_6FD5_6395,
    0x5DB4_8320_46F3_D9E5,
    0x239F_8B2D_7FF7_19CC,
    0x05D1_A1AE_85B4_9AA1,
    0x679F_848F_6E8F_C971,
    0x7449_BBFF_801F_ED0B,
    0x7D11_CDB1_C3B7_ADF0,
    0x82C7_709E_781E_B7CC,
    0xF321_8F1C_9510_786C,
    0x3314_78F3_AF51_BBE6,
    0x4BB3_8DE5_E721_9443,
    0xAA64_9C6E_BCFD_50FC,
    0x8DBD_98A3_52AF_D40B,
    0x87D2_074B_81D7_9217,
    0x19F3_C751_D3E9_2AE1,
    0xB4AB_30F0_62B1_9ABF,
    0x7B05_00AC_4204_7AC4,
    0xC945_2CA8_1A09_D85D,
    0x24AA_6C51_4DA2_7500,
    0x4C9F_3442_7501_B447,
    0x14A6_8FD7_3C91_0841,
    0xA71B_9B83_461C_BD93,
    0x0348_8B95_B0F1_850F,
    0x637B_2B34_FF93_C040,
    0x09D1_BC9A_3DD9_0A94,
    0x3575_6683_34A1_DD3B,
    0x735E_2B97_A4C4_5A23,
    0x1872_7070_F1BD_400B,
    0x1FCB_ACD2_59BF_02E7,
    0xD310_A7C2_CE9B_6555,
    0xBF98_3FE0_FE5D_8244,
    0x9F74_D14F_7454_A824,
    0x51EB_DC4A_B9BA_3035,
    0x5C82_C505_DB9A_B0FA,
    0xFCF7_FE8A_3430_B241,
    0x3253_A729_B9BA_3DDE,
    0x8C74_C368_081B_3075,
    0xB9BC_6C87_167C_33E7,
    0x7EF4_8F2B_8302_4E20,
    0x11D5_05D4_C351_BD7F,
    0x6568_FCA9_2C76_A243,
    0x4DE0_B0F4_0F32_A7B8,
    0x96D6_9346_0CC3_7E5D,
    0x42E2_40CB_6368_9F2F,
    0x6D2B_DCDA_E291_9661,
    0x4288_0B02_36E4_D951,
    0x5F0F_4A58_9817_1BB6,
    0x39F8_90F5_79F9_2F88,
    0x93C5_B5F4_7356_388B,
    0x63DC_359D_8D23_1B78,
    0xEC16_CA8A_EA98_AD76,
    0x5355_F900_C2A8_2DC7,
    0x07FB_9F85_5A99_7142,
    0x5093_417A_A8A7_ED5E,
    0x7BCB_C38D_A25A_7F3C,
    0x19FC_8A76_8CF4_B6D4,
    0x637A_7780_DECF_C0D9,
    0x8249_A47A_EE0E_41F7,
    0x79AD_6955_01E7_D1E8,
    0x14AC_BAF4_777D_5776,
    0xF145_B6BE_CCDE_A195,
    0xDABF_2AC8_2017_52FC,
    0x24C3_C94D_F9C8_D3F6,
    0xBB6E_2924_F039_12EA,
    0x0CE2_6C0B_95C9_80D9,
    0xA49C_D132_BFBF_7CC4,
    0xE99D_662A_F424_3939,
    0x27E6_AD78_9116_5C3F,
    0x8535_F040_B974_4FF1,
    0x54B3_F4FA_5F40_D873,
    0x72B1_2C32_127F_ED2B,
    0xEE95_4D3C_7B41_1F47,
    0x9A85_AC90_9A24_EAA1,
    0x70AC_4CD9_F04F_21F5,
    0xF9B8_9D3E_99A0_75C2,
    0x87B3_E2B2_B5C9_07B1,
    0xA366_E5B8_C54F_48B8,
    0xAE4A_9346_CC3F_7CF2,
    0x1920_C04D_4726_7BBD,
    0x87BF_02C6_B49E_2AE9,
    0x0922_37AC_237F_3859,
    0xFF07_F64E_F8ED_14D0,
    0x8DE8_DCA9_F03C_C54E,
    0x9C16_3326_4DB4_9C89,
    0xB3F2_2C3D_0B0B_38ED,
    0x390E_5FB4_4D01_144B,
    0x5BFE_A5B4_7127_68E9,
    0x1E10_3291_1FA7_8984,
    0x9A74_ACB9_64E7_8CB3,
    0x4F80_F7A0_35DA_FB04,
    0x6304_D09A_0B37_38C4,
    0x2171_E646_8302_3A08,
    0x5B9B_63EB_9CEF_F80C,
    0x506A_ACF4_8988_9342,
    0x1881_AFC9_A3A7_01D6,
    0x6503_0804_4075_0644,
    0xDFD3_9533_9CDB_F4A7,
    0xEF92_7DBC_F00C_20F2,
    0x7B32_F7D1_E036_80EC,
    0xB9FD_7620_E731_6243,
    0x05A7_E8A5_7DB9_1B77,
    0xB588_9C6E_1563_0A75,
    0x4A75_0A09_CE95_73F7,
    0xCF46_4CEC_899A_2F8A,
    0xF538_639C_E705_B824,
    0x3C79_A0FF_5580_EF7F,
    0xEDE6_C87F_8477_609D,
    0x799E_81F0_5BC9_3F31,
    0x8653_6B8C_F342_8A8C,
    0x97D7_374C_6008_7B73,
    0xA246_637C_FF32_8532,
    0x043F_CAE6_0CC0_EBA0,
    0x920E_4495_35DD_359E,
    0x70EB_093B_15B2_90CC,
    0x73A1_9219_1659_1CBD,
    0x5643_6C9F_E1A1_AA8D,
    0xEFAC_4B70_633B_8F81,
    0xBB21_5798_D45D_F7AF,
    0x45F2_0042_F24F_1768,
    0x930F_80F4_E8EB_7462,
    0xFF67_12FF_CFD7_5EA1,
    0xAE62_3FD6_7468_AA70,
    0xDD2C_5BC8_4BC8_D8FC,
    0x7EED_120D_54CF_2DD9,
    0x22FE_5454_0116_5F1C,
    0xC918_00E9_8FB9_9929,
    0x808B_D68E_6AC1_0365,
    0xDEC4_6814_5B76_05F6,
    0x1BED_E3A3_AEF5_3302,
    0x4353_9603_D6C5_5602,
    0xAA96_9B5C_691C_CB7A,
    0xA878_32D3_92EF_EE56,
    0x6594_2C7B_3C7E_11AE,
    0xDED2_D633_CAD0_04F6,
    0x21F0_8570_F420_E565,
    0xB415_938D_7DA9_4E3C,
    0x91B8_59E5_9ECB_6350,
    0x10CF_F333_E0ED_804A,
    0x28AE_D140_BE0B_B7DD,
    0xC5CC_1D89_724F_A456,
    0x5648_F680_F11A_2741,
    0x2D25_5069_F0B7_DAB3,
    0x9BC5_A38E_F729_ABD4,
    0xEF2F_0543_08F6_A2BC,
    0xAF20_42F5_CC5C_2858,
    0x4804_12BA_B7F5_BE2A,
    0xAEF3_AF4A_563D_FE43,
    0x19AF_E59A_E451_497F,
    0x5259_3803_DFF1_E840,
    0xF4F0_76E6_5F2C_E6F0,
    0x1137_9625_747D_5AF3,
    0xBCE5_D224_8682_C115,
    0x9DA4_243D_E836_994F,
    0x066F_70B3_3FE0_9017,
    0x4DC4_DE18_9B67_1A1C,
    0x5103_9AB7_7124_57C3,
    0xC07A_3F80_C31F_B4B4,
    0xB46E_E9C5_E64A_6E7C,
    0xB381_9A42_ABE6_1C87,
    0x21A0_0793_3A52_2A20,
    0x2DF1_6F76_1598_AA4F,
    0x763C_4A13_71B3_68FD,
    0xF793_C467_02E0_86A0,
    0xD728_8E01_2AEB_8D31,
    0xDE33_6A2A_4BC1_C44B,
    0x0BF6_92B3_8D07_9F23,
    0x2C60_4A7A_1773_26B3,
    0x4850_E73E_03EB_6064,
    0xCFC4_47F1_E53C_8E1B,
    0xB05C_A3F5_6426_8D99,
    0x9AE1_82C8_BC94_74E8,
    0xA4FC_4BD4_FC55_58CA,
    0xE755_178D_58FC_4E76,
    0x69B9_7DB1_A4C0_3DFE,
    0xF9B5_B7C4_ACC6_7C96,
    0xFC6A_82D6_4B86_55FB,
    0x9C68_4CB6_C4D2_4417,
    0x8EC9_7D29_1745_6ED0,
    0x6703_DF9D_2924_E97E,
    0xC547_F57E_42A7_444E,
    0x78E3_7644_E7CA_D29E,
    0xFE9A_44E9_362F_05FA,
    0x08BD_35CC_3833_6615,
    0x9315_E5EB_3A12_9ACE,
    0x9406_1B87_1E04_DF75,
    0xDF1D_9F9D_784B_A010,
    0x3BBA_57B6_8871_B59D,
    0xD2B7_ADEE_DED1_F73F,
    0xF7A2_55D8_3BC3_73F8,
    0xD7F4_F244_8C0C_EB81,
    0xD95B_E88C_D210_FFA7,
    0x336F_52F8_FF47_28E7,
    0xA740_49DA_C312_AC71,
    0xA2F6_1BB6_E437_FDB5,
    0x4F2A_5CB0_7F6A_35B3,
    0x87D3_80BD_A5BF_7859,
    0x16B9_F7E0_6C45_3A21,
    0x7BA2_484C_8A0F_D54E,
    0xF3A6_78CA_D9A2_E38C,
    0x39B0_BF7D_DE43_7BA2,
    0xFCAF_55C1_BF8A_4424,
    0x18FC_F680_573F_A594,
    0x4C05_63B8_9F49_5AC3,
    0x40E0_8793_1A00_930D,
    0x8CFF_A941_2EB6_42C1,
    0x68CA_3905_3261_169F,
    0x7A1E_E967_D275_79E2,
    0x9D1D_60E5_076F_5B6F,
    0x3810_E399_B6F6_5BA2,
    0x3209_5B6D_4AB5_F9B1,
    0x35CA_B621_09DD_038A,
    0xA90B_2449_9FCF_AFB1,
    0x77A2_25A0_7CC2_C6BD,
    0x513E_5E63_4C70_E331,
    0x4361_C0CA_3F69_2F12,
    0xD941_ACA4_4B20_A45B,
    0x528F_7C86_02C5_807B,
    0x52AB_92BE_B961_3989,
    0x9D1D_FA2E_FC55_7F73,
    0x722F_F175_F572_C348,
    0x1D12_60A5_1107_FE97,
    0x7A24_9A57_EC0C_9BA2,
    0x0420_8FE9_E8F7_F2D6,
    0x5A11_0C60_58B9_20A0,
    0x0CD9_A497_658A_5698,
    0x56FD_23C8_F971_5A4C,
    0x284C_847B_9D88_7AAE,
    0x04FE_ABFB_BDB6_19CB,
    0x742E_1E65_1C60_BA83,
    0x9A96_32E6_5904_AD3C,
    0x881B_82A1_3B51_B9E2,
    0x506E_6744_CD97_4924,
    0xB018_3DB5_6FFC_6A79,
    0x0ED9_B915_C66E_D37E,
    0x5E11_E86D_5873_D484,
    0xF678_647E_3519_AC6E,
    0x1B85_D488_D0F2_0CC5,
    0xDAB9_FE65_25D8_9021,
    0x0D15_1D86_ADB7_3615,
    0xA865_A54E_DCC0_F019,
    0x93C4_2566_AEF9_8FFB,
    0x99E7_AFEA_BE00_0731,
    0x48CB_FF08_6DDF_285A,
    0x7F9B_6AF1_EBF7_8BAF,
    0x5862_7E1A_149B_BA21,
    0x2CD1_6E2A_BD79_1E33,
    0xD363_EFF5_F097_7996,
    0x0CE2_A38C_344A_6EED,
    0x1A80_4AAD_B9CF_A741,
    0x907F_3042_1D78_C5DE,
    0x501F_65ED_B303_4D07,
    0x3762_4AE5_A48F_A6E9,
    0x957B_AF61_700C_FF4E,
    0x3A6C_2793_4E31_188A,
    0xD495_0353_6ABC_A345,
    0x088E_0495_89C4_32E0,
    0xF943_AEE7_FEBF_21B8,
    0x6C3B_8E3E_3361_39D3,
    0x364F_6FFA_464E_E52E,
    0xD60F_6DCE_DC31_4222,
    0x5696_3B0D_CA41_8FC0,
    0x16F5_0EDF_91E5_13AF,
    0xEF19_5591_4B60_9F93,
    0x5656_01C0_364E_3228,
    0xECB5_3939_887E_8175,
    0xBAC7_A9A1_8531_294B,
    0xB344_C470_397B_BA52,
    0x65D3_4954_DAF3_CEBD,
    0xB4B8_1B3F_A975_11E2,
    0xB422_0611_93D6_F6A7,
    0x0715_8240_1C38_434D,
    0x7A13_F18B_BEDC_4FF5,
    0xBC40_97B1_16C5_24D2,
    0x59B9_7885_E2F2_EA28,
    0x9917_0A5D_C311_5544,
    0x6F42_3357_E7C6_A9F9,
    0x3259_28EE_6E6F_8794,
    0xD0E4_3662_28B0_3343,
    0x565C_31F7_DE89_EA27,
    0x30F5_6114_8411_9414,
    0xD873_DB39_1292_ED4F,
    0x7BD9_4E1D_8E17_DEBC,
    0xC7D9_F168_64A7_6E94,
    0x947A_E053_EE56_E63C,
    0xC8C9_3882_F947_5F5F,
    0x3A9B_F55B_A91F_81CA,
    0xD9A1_1FBB_3D98_08E4,
    0x0FD2_2063_EDC2_9FCA,
    0xB3F2_56D8_ACA0_B0B9,
    0xB030_31A8_B451_6E84,
    0x35DD_37D5_8714_48AF,
    0xE9F6_082B_0554_2E4E,
    0xEBFA_FA33_D725_4B59,
    0x9255_ABB5_0D53_2280,
    0xB9AB_4CE5_7F2D_34F3,
    0x6935_01D6_2829_7551,
    0xC62C_58F9_7DD9_49BF,
    0xCD45_4F8F_19C5_126A,
    0xBBE8_3F4E_CC2B_DECB,
    0xDC84_2B7E_2819_E230,
    0xBA89_142E_0075_03B8,
    0xA3BC_941D_0A50_61CB,
    0xE9F6_760E_32CD_8021,
    0x09C7_E552_BC76_492F,
    0x852F_5493_4DA5_5CC9,
    0x8107_FCCF_064F_CF56,
    0x0989_54D5_1FFF_6580,
    0x23B7_0EDB_1955_C4BF,
    0xC330_DE42_6430_F69D,
    0x4715_ED43_E8A4_5C0A,
    0xA8D7_E4DA_B780_A08D,
    0x0572_B974_F03C_E0BB,
    0xB57D_2E98_5E14_19C7,
    0xE8D9_ECBE_2CF3_D73F,
    0x2FE4_B171_70E5_9750,
    0x1131_7BA8_7905_E790,
    0x7FBF_21EC_8A1F_45EC,
    0x1725_CABF_CB04_5B00,
    0x964E_915C_D5E2_B207,
    0x3E2B_8BCB_F016_D66D,
    0xBE74_44E3_9328_A0AC,
    0xF85B_2B4F_BCDE_44B7,
    0x4935_3FEA_39BA_63B1,
    0x1DD0_1AAF_CD53_486A,
    0x1FCA_8A92_FD71_9F85,
    0xFC7C_95D8_2735_7AFA,
    0x18A6_A990_C8B3_5EBD,
    0xCCCB_7005_C6B9_C28D,
    0x3BDB_B92C_43B1_7F26,
    0xAA70_B5B4_F896_95A2,
    0xE94C_39A5_4A98_307F,
    0xB7A0_B174_CFF6_F36E,
    0xD4DB_A847_29AF_48AD,
    0x2E18_BC1A_D970_4A68,
    0x2DE0_966D_AF2F_8B1C,
    0xB9C1_1D5B_1E43_A07E,
    0x6497_2D68_DEE3_3360,
    0x9462_8D38_D0C2_0584,
    0xDBC0_D2B6_AB90_A559,
    0xD273_3C43_35C6_A72F,
    0x7E75_D99D_94A7_0F4D,
    0x6CED_1983_376F_A72B,
    0x97FC_AACB_F030_BC24,
    0x7B77_497B_3250_3B12,
    0x8547_EDDF_B81C_CB94,
    0x7999_9CDF_F709_02CB,
    0xCFFE_1939_438E_9B24,
    0x8296_26E3_892D_95D7,
    0x92FA_E242_91F2_B3F1,
    0x63E2_2C14_7B9C_3403,
    0xC678_B6D8_6028_4A1C,
    0x5873_8888_5065_9AE7,
    0x0981_DCD2_96A8_736D,
    0x9F65_789A_6509_A440,
    0x9FF3_8FED_72E9_052F,
    0xE479_EE5B_9930_578C,
    0xE7F2_8ECD_2D49_EECD,
    0x56C0_74A5_81EA_17FE,
    0x5544_F7D7_74B1_4AEF,
    0x7B3F_0195_FC6F_290F,
    0x1215_3635_B2C0_CF57,
    0x7F51_26DB_BA5E_0CA7,
    0x7A76_956C_3EAF_B413,
    0x3D57_74A1_1D31_AB39,
    0x8A1B_0838_21F4_0CB4,
    0x7B4A_38E3_2537_DF62,
    0x9501_1364_6D1D_6E03,
    0x4DA8_979A_0041_E8A9,
    0x3BC3_6E07_8F75_15D7,
    0x5D0A_12F2_7AD3_10D1,
    0x7F9D_1A2E_1EBE_1327,
    0xDA3A_361B_1C51_57B1,
    0xDCDD_7D20_903D_0C25,
    0x3683_3336_D068_F707,
    0xCE68_341F_7989_3389,
    0xAB90_9016_8DD0_5F34,
    0x4395_4B32_52DC_25E5,
    0xB438_C2B6_7F98_E5E9,
    0x10DC_D78E_3851_A492,
    0xDBC2_7AB5_4478_22BF,
    0x9B3C_DB65_F82C_A382,
    0xB67B_7896_167B_4C84,
    0xBFCE_D1B0_048E_AC50,
    0xA911_9B60_369F_FEBD,
    0x1FFF_7AC8_0904_BF45,
    0xAC12_FB17_1817_EEE7,
    0xAF08_DA91_77DD_A93D,
    0x1B0C_AB93_6E65_C744,
    0xB559_EB1D_04E5_E932,
    0xC37B_45B3_F8D6_F2BA,
    0xC3A9_DC22_8CAA_C9E9,
    0xF3B8_B667_5A65_07FF,
    0x9FC4_77DE_4ED6_81DA,
    0x6737_8D8E_CCEF_96CB,
    0x6DD8_56D9_4D25_9236,
    0xA319_CE15_B0B4_DB31,
    0x0739_7375_1F12_DD5E,
    0x8A8E_849E_B327_81A5,
    0xE192_5C71_2852_79F5,
    0x74C0_4BF1_790C_0EFE,
    0x4DDA_4815_3C94_938A,
    0x9D26_6D6A_1CC0_542C,
    0x7440_FB81_6508_C4FE,
    0x1332_8503_DF48_229F,
    0xD6BF_7BAE_E43C_AC40,
    0x4838_D65F_6EF6_748F,
    0x1E15_2328_F331_8DEA,
    0x8F84_19A3_48F2_96BF,
    0x72C8_834A_5957_B511,
    0xD7A0_23A7_3260_B45C,
    0x94EB_C8AB_CFB5_6DAE,
    0x9FC1_0D0F_9899_93E0,
    0xDE68_A235_5B93_CAE6,
    0xA44C_FE79_AE53_8BBE,
    0x9D1D_84FC_CE37_1425,
    0x51D2_B1AB_2DDF_B636,
    0x2FD7_E4B9_E72C_D38C,
    0x65CA_5B96_B755_2210,
    0xDD69_A0D8_AB3B_546D,
    0x604D_51B2_5FBF_70E2,
    0x73AA_8A56_4FB7_AC9E,
    0x1A8C_1E99_2B94_1148,
    0xAAC4_0A27_03D9_BEA0,
    0x764D_BEAE_7FA4_F3A6,
    0x1E99_B96E_70A9_BE8B,
    0x2C5E_9DEB_57EF_4743,
    0x3A93_8FEE_32D2_9981,
    0x26E6_DB8F_FDF5_ADFE,
    0x4693_56C5_04EC_9F9D,
    0xC876_3C5B_08D1_908C,
    0x3F6C_6AF8_59D8_0055,
    0x7F7C_C394_20A3_A545,
    0x9BFB_227E_BDF4_C5CE,
    0x8903_9D79_D6FC_5C5C,
    0x8FE8_8B57_305E_2AB6,
    0xA09E_8C8C_35AB_96DE,
    0xFA7E_3939_8332_5753,
    0xD6B6_D0EC_C617_C699,
    0xDFEA_21EA_9E75_57E3,
    0xB67C_1FA4_8168_0AF8,
    0xCA1E_3785_A9E7_24E5,
    0x1CFC_8BED_0D68_1639,
    0xD18D_8549_D140_CAEA,
    0x4ED0_FE7E_9DC9_1335,
    0xE4DB_F063_4473_F5D2,
    0x1761_F93A_44D5_AEFE,
    0x5389_8E4C_3910_DA55,
    0x734D_E818_1F6E_C39A,
    0x2680_B122_BAA2_8D97,
    0x298A_F231_C85B_AFAB,
    0x7983_EED3_7408_47D5,
    0x66C1_A2A1_A60C_D889,
    0x9E17_E496_42A3_E4C1,
    0xEDB4_54E7_BADC_0805,
    0x50B7_04CA_B602_C329,
    0x4CC3_17FB_9CDD_D023,
    0x66B4_835D_9EAF_EA22,
    0x219B_97E2_6FFC_81BD,
    0x261E_4E4C_0A33_3A9D,
    0x1FE2_CCA7_6517_DB90,
    0xD750_4DFA_8816_EDBB,
    0xB957_1FA0_4DC0_89C8,
    0x1DDC_0325_259B_27DE,
    0xCF3F_4688_801E_B9AA,
    0xF4F5_D05C_10CA_B243,
    0x38B6_525C_21A4_2B0E,
    0x36F6_0E2B_A4FA_6800,
    0xEB35_9380_3173_E0CE,
    0x9C4C_D625_7C5A_3603,
    0xAF0C_317D_32AD_AA8A,
    0x258E_5A80_C720_4C4B,
    0x8B88_9D62_4D44_885D,
    0xF4D1_4597_E660_F855,
    0xD434_7F66_EC89_41C3,
    0xE699_ED85_B0DF_B40D,
    0x2472_F620_7C2D_0484,
    0xC2A1_E7B5_B459_AEB5,
    0xAB4F_6451_CC1D_45EC,
    0x6376_7572_AE3D_6174,
    0xA59E_0BD1_0173_1A28,
    0x116D_0016_CB94_8F09,
    0x2CF9_C8CA_052F_6E9F,
    0x0B09_0A75_60A9_68E3,
    0xABEE_DDB2_DDE0_6FF1,
    0x58EF_C10B_06A2_068D,
    0xC6E5_7A78_FBD9_86E0,
    0x2EAB_8CA6_3CE8_02D7,
    0x14A1_9564_0116_F336,
    0x7C08_28DD_624E_C390,
    0xD74B_BE77_E611_6AC7,
    0x8044_56AF_10F5_FB53,
    0xEBE9_EA2A_DF43_21C7,
    0x0321_9A39_EE58_7A30,
    0x4978_7FEF_17AF_9924,
    0xA1E9_300C_D852_0548,
    0x5B45_E522_E4B1_B4EF,
    0xB49C_3B39_9509_1A36,
    0xD449_0AD5_26F1_4431,
    0x12A8_F216_AF94_18C2,
    0x001F_837C_C735_0524,
    0x1877_B51E_57A7_64D5,
    0xA285_3B80_F17F_58EE,
    0x993E_1DE7_2D36_D310,
    0xB359_8080_CE64_A656,
    0x252F_59CF_0D9F_04BB,
    0xD23C_8E17_6D11_3600,
    0x1BDA_0492_E7E4_586E,
    0x21E0_BD50_26C6_19BF,
    0x3B09_7ADA_F088_F94E,
    0x8D14_DEDB_30BE_846E,
    0xF95C_FFA2_3AF5_F6F4,
    0x3871_7007_61B3_F743,
    0xCA67_2B91_E9E4_FA16,
    0x64C8_E531_BFF5_3B55,
    0x2412_60ED_4AD1_E87D,
    0x106C_09B9_72D2_E822,
    0x7FBA_1954_10E5_CA30,
    0x7884_D9BC_6CB5_69D8,
    0x0647_DFED_CD89_4A29,
    0x6357_3FF0_3E22_4774,
    0x4FC8_E956_0F91_B123,
    0x1DB9_56E4_5027_5779,
    0xB8D9_1274_B9E9_D4FB,
    0xA2EB_EE47_E2FB_FCE1,
    0xD9F1_F30C_CD97_FB09,
    0xEFED_53D7_5FD6_4E6B,
    0x2E6D_02C3_6017_F67F,
    0xA9AA_4D20_DB08_4E9B,
    0xB64B_E8D8_B253_96C1,
    0x70CB_6AF7_C2D5_BCF0,
    0x98F0_76A4_F7A2_322E,
    0xBF84_4708_05E6_9B5F,
    0x94C3_251F_06F9_0CF3,
    0x3E00_3E61_6A65_91E9,
    0xB925_A6CD_0421_AFF3,
    0x61BD_D130_7C66_E300,
    0xBF8D_5108_E27E_0D48,
    0x240A_B57A_8B88_8B20,
    0xFC87_614B_AF28_7E07,
    0xEF02_CDD0_6FFD_B432,
    0xA108_2C04_66DF_6C0A,
    0x8215_E577_0013_32C8,
    0xD39B_B9C3_A48D_B6CF,
    0x2738_2596_3430_5C14,
    0x61CF_4F94_C97D_F93D,
    0x1B6B_ACA2_AE4E_125B,
    0x758F_450C_8857_2E0B,
    0x959F_587D_507A_8359,
    0xB063_E962_E045_F54D,
    0x60E8_ED72_C0DF_F5D1,
    0x7B64_9785_5532_6F9F,
    0xFD08_0D23_6DA8_14BA,
    0x8C90_FD9B_083F_4558,
    0x106F_72FE_81E2_C590,
    0x7976_033A_39F7_D952,
    0xA4EC_0132_764C_A04B,
    0x733E_A705_FAE4_FA77,
    0xB4D8_F77B_C3E5_6167,
    0x9E21_F4F9_03B3_3FD9,
    0x9D76_5E41_9FB6_9F6D,
    0xD30C_088B_A61E_A5EF,
    0x5D94_337F_BFAF_7F5B,
    0x1A4E_4822_EB4D_7A59,
    0x6FFE_73E8_1B63_7FB3,
    0xDDF9_57BC_36D8_B9CA,
    0x64D0_E29E_EA88_38B3,
    0x08DD_9BDF_D96B_9F63,
    0x087E_79E5_A57D_1D13,
    0xE328_E230_E3E2_B3FB,
    0x1C25_59E3_0F09_46BE,
    0x720B_F5F2_6F4D_2EAA,
    0xB077_4D26_1CC6_09DB,
    0x443F_64EC_5A37_1195,
    0x4112_CF68_649A_260E,
    0xD813_F2FA_B7F5_C5CA,
    0x660D_3257_3808_41EE,
    0x59AC_2C78_73F9_10A3,
    0xE846_9638_7767_1A17,
    0x93B6_33AB_FA34_69F8,
    0xC0C0_F5A6_0EF4_CDCF,
    0xCAF2_1ECD_4377_B28C,
    0x5727_7707_199B_8175,
    0x506C_11B9_D90E_8B1D,
    0xD83C_C268_7A19_255F,
    0x4A29_C646_5A31_4CD1,
    0xED2D_F212_1623_5097,
    0xB563_5C95_FF72_96E2,
    0x22AF_003A_B672_E811,
    0x52E7_6259_6BF6_8235,
    0x9AEB_A33A_C6EC_C6B0,
    0x944F_6DE0_9134_DFB6,
    0x6C47_BEC8_83A7_DE39,
    0x6AD0_47C4_30A1_2104,
    0xA5B1_CFDB_A0AB_4067,
    0x7C45_D833_AFF0_7862,
    0x5092_EF95_0A16_DA0B,
    0x9338_E69C_052B_8E7B,
    0x455A_4B4C_FE30_E3F5,
    0x6B02_E631_95AD_0CF8,
    0x6B17_B224_BAD6_BF27,
    0xD1E0_CCD2_5BB9_C169,
    0xDE0C_89A5_56B9_AE70,
    0x5006_5E53_5A21_3CF6,
    0x9C11_69FA_2777_B874,
    0x78ED_EFD6_94AF_1EED,
    0x6DC9_3D95_26A5_0E68,
    0xEE97_F453_F067_91ED,
    0x32AB_0EDB_6967_03D3,
    0x3A68_53C7_E707_57A7,
    0x3186_5CED_6120_F37D,
    0x67FE_F95D_9260_7890,
    0x1F2B_1D1F_15F6_DC9C,
    0xB69E_38A8_965C_6B65,
    0xAA91_19FF_184C_CCF4,
    0xF43C_7328_73F2_4C13,
    0xFB4A_3D79_4A9A_80D2,
    0x3550_C232_1FD6_109C,
    0x371F_77E7_6BB8_417E,
    0x6BFA_9AAE_5EC0_5779,
    0xCD04_F3FF_001A_4778,
    0xE327_3522_0644_80CA,
    0x9F91_508B_FFCF_C14A,
    0x049A_7F41_061A_9E60,
    0xFCB6_BE43_A9F2_FE9B,
    0x08DE_8A1C_7797_DA9B,
    0x8F98_87E6_0787_35A1,
    0xB5B4_071D_BFC7_3A66,
    0x230E_343D_FBA0_8D33,
    0x43ED_7F5A_0FAE_657D,
    0x3A88_A0FB_BCB0_5C63,
    0x2187_4B8B_4D2D_BC4F,
    0x1BDE_A12E_35F6_A8C9,
    0x53C0_65C6_C8E6_3528,
    0xE34A_1D25_0E7A_8D6B,
    0xD6B0_4D3B_7651_DD7E,
    0x5E90_277E_7CB3_9E2D,
    0x2C04_6F22_062D_C67D,
    0xB10B_B459_132D_0A26,
    0x3FA9_DDFB_67E2_F199,
    0x0E09_B88E_1914_F7AF,
    0x10E8_B35A_F3EE_AB37,
    0x9EED_ECA8_E272_B933,
    0xD4C7_18BC_4AE8_AE5F,
    0x8153_6D60_1170_FC20,
    0x91B5_34F8_8581_8A06,
    0xEC81_77F8_3F90_0978,
    0x190E_714F_ADA5_156E,
    0xB592_BF39_B036_4963,
    0x89C3_50C8_93AE_7DC1,
    0xAC04_2E70_F8B3_83F2,
    0xB49B_52E5_87A1_EE60,
    0xFB15_2FE3_FF26_DA89,
    0x3E66_6E6F_69AE_2C15,
    0x3B54_4EBE_544C_19F9,
    0xE805_A1E2_90CF_2456,
    0x24B3_3C9D_7ED2_5117,
    0xE747_3342_7B72_F0C1,
    0x0A80_4D18_B709_7475,
    0x57E3_306D_881E_DB4F,
    0x4AE7_D6A3_6EB5_DBCB,
    0x2D8D_5432_1570_64C8,
    0xD1E6_49DE_1E7F_268B,
    0x8A32_8A1C_EDFE_552C,
    0x07A3_AEC7_9624_C7DA,
    0x8454_7DDC_3E20_3C94,
    0x990A_98FD_5071_D263,
    0x1A4F_F126_16EE_FC89,
    0xF6F7_FD14_3171_4200,
    0x30C0_5B1B_A332_F41C,
    0x8D26_36B8_1555_A786,
    0x46C9_FEB5_5D12_0902,
    0xCCEC_0A73_B49C_9921,
    0x4E9D_2827_355F_C492,
    0x19EB_B029_435D_CB0F,
    0x4659_D2B7_4384_8A2C,
    0x963E_F2C9_6B33_BE31,
    0x74F8_5198_B05A_2E7D,
    0x5A0F_544D_D2B1_FB18,
    0x0372_7073_C2E1_34B1,
    0xC7F6_AA2D_E59A_EA61,
    0x3527_87BA_A0D7_C22F,
    0x9853_EAB6_3B5E_0B35,
    0xABBD_CDD7_ED5C_0860,
    0xCF05_DAF5_AC8D_77B0,
    0x49CA_D48C_EBF4_A71E,
    0x7A4C_10EC_2158_C4A6,
    0xD9E9_2AA2_46BF_719E,
    0x13AE_978D_09FE_5557,
    0x7304_99AF_9215_49FF,
    0x4E4B_705B_9290_3BA4,
    0xFF57_7222_C14F_0A3A,
    0x55B6_344C_F97A_AFAE,
    0xB862_225B_055B_6960,
    0xCAC0_9AFB_DDD2_CDB4,
    0xDAF8_E982_9FE9_6B5F,
    0xB5FD_FC5D_3132_C498,
    0x310C_B380_DB6F_7503,
    0xE87F_BB46_217A_360E,
    0x2102_AE46_6EBB_1148,
    0xF854_9E1A_3AA5_E00D,
    0x07A6_9AFD_CC42_261A,
    0xC4C1_18BF_E78F_EAAE,
    0xF9F4_892E_D96B_D438,
    0x1AF3_DBE2_5D8F_45DA,
    0xF5B4_B0B0_D2DE_EEB4,
    0x962A_CEEF_A82E_1C84,
    0x046E_3ECA_AF45_3CE9,
    0xF05D_1296_8194_9A4C,
    0x9647_81CE_734B_3C84,
    0x9C2E_D440_81CE_5FBD,
    0x522E_23F3_925E_319E,
    0x177E_00F9_FC32_F791,
    0x2BC6_0A63_A6F3_B3F2,
    0x222B_BFAE_6172_5606,
    0x4862_89DD_CC3D_6780,
    0x7DC7_785B_8EFD_FC80,
    0x8AF3_8731_C02B_A980,
    0x1FAB_64EA_29A2_DDF7,
    0xE4D9_4293_22CD_065A,
    0x9DA0_58C6_7844_F20C,
    0x24C0_E332_B700_19B0,
    0x2330_03B5_A6CF_E6AD,
    0xD586_BD01_C5C2_17F6,
    0x5E56_3788_5F29_BC2B,
    0x7EBA_726D_8C94_094B,
    0x0A56_A5F0_BFE3_9272,
    0xD794_76A8_4EE2_0D06,
    0x9E4C_1269_BAA4_BF37,
    0x17EF_EE45_B0DE_E640,
    0x1D95_B0A5_FCF9_0BC6,
    0x93CB_E0B6_99C2_585D,
    0x65FA_4F22_7A2B_6D79,
    0xD5F9_E858_2925_04D5,
    0xC2B5_A03F_7147_1A6F,
    0x5930_0222_B456_1E00,
    0xCE2F_8642_CA07_12DC,
    0x7CA9_723F_BB2E_8988,
    0x2785_3383_47F2_BA08,
    0xC61B_B3A1_41E5_0E8C,
    0x150F_361D_AB9D_EC26,
    0x9F6A_419D_3825_95F4,
    0x64A5_3DC9_24FE_7AC9,
    0x142D_E49F_FF7A_7C3D,
    0x0C33_5248_857F_A9E7,
    0x0A9C_32D5_EAE4_5305,
    0xE6C4_2178_C4BB_B92E,
    0x71F1_CE24_90D2_0B07,
    0xF1BC_C3D2_75AF_E51A,
    0xE728_E8C8_3C33_4074,
    0x96FB_F83A_1288_4624,
    0x81A1_549F_D657_3DA5,
    0x5FA7_867C_AF35_E149,
    0x5698_6E2E_F3ED_091B,
    0x917F_1DD5_F888_6C61,
    0xD20D_8C88_C8FF_E65F,
    0x31D7_1DCE_64B2_C310,
    0xF165_B587_DF89_8190,
    0xA57E_6339_DD2C_F3A0,
    0x1EF6_E6DB_B196_1EC9,
    0x70CC_73D9_0BC2_6E24,
    0xE21A_6B35_DF0C_3AD7,
    0x003A_93D8_B280_6962,
    0x1C99_DED3_3CB8_90A1,
    0xCF31_45DE_0ADD_4289,
    0xD0E4_427A_5514_FB72,
    0x77C6_21CC_9FB3_A483,
    0x67A3_4DAC_4356_550B,
    0xF8D6_26AA_AF27_8509,
];

const CASTLE: usize = 768;
const EN_PASSANT: usize = 772;
const TURN: usize = 780;

/// The Polyglot key of a position. The en-passant file counts only when a
/// pawn of the side to move stands next to the pawn that just advanced two
/// squares (whether or not the capture is legal).
pub fn key(pos: &Chess) -> u64 {
    let mut key = 0u64;
    for (square, piece) in pos.board().iter() {
        let kind = 2 * (piece.role as usize - 1) + usize::from(piece.color.is_white());
        key ^= RANDOM64[64 * kind + square as usize];
    }
    let castles = pos.castles();
    for (i, (color, side)) in [
        (Color::White, CastlingSide::KingSide),
        (Color::White, CastlingSide::QueenSide),
        (Color::Black, CastlingSide::KingSide),
        (Color::Black, CastlingSide::QueenSide),
    ]
    .into_iter()
    .enumerate()
    {
        if castles.has(color, side) {
            key ^= RANDOM64[CASTLE + i];
        }
    }
    if let Some(ep) = pos.ep_square(EnPassantMode::PseudoLegal) {
        key ^= RANDOM64[EN_PASSANT + ep.file() as usize];
    }
    if pos.turn().is_white() {
        key ^= RANDOM64[TURN];
    }
    key
}

/// One 16-byte book entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    /// The position's key.
    pub key: u64,
    /// The move: bits 0-2 to file, 3-5 to rank, 6-8 from file, 9-11 from
    /// rank, 12-14 promotion (0 none, 1 knight, 2 bishop, 3 rook, 4 queen).
    pub raw_move: u16,
    /// The move's weight (0: never play it).
    pub weight: u16,
    /// Learning data.
    pub learn: u32,
}

/// A book file that is not a whole number of 16-byte entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BookError {
    /// Bytes in the file.
    pub len: usize,
}

impl std::fmt::Display for BookError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "not a Polyglot book: {} bytes is not a multiple of 16 (a partial entry at byte offset {})",
            self.len,
            self.len / 16 * 16
        )
    }
}

impl std::error::Error for BookError {}

/// A Polyglot book held in memory, entries sorted by key.
#[derive(Debug, Clone, Default)]
pub struct Book {
    entries: Vec<Entry>,
}

impl Book {
    /// Reads a book's bytes.
    pub fn read(bytes: &[u8]) -> Result<Book, BookError> {
        if !bytes.len().is_multiple_of(16) {
            return Err(BookError { len: bytes.len() });
        }
        let mut entries: Vec<Entry> = bytes
            .chunks_exact(16)
            .map(|c| Entry {
                key: u64::from_be_bytes(c[0..8].try_into().unwrap_or_default()),
                raw_move: u16::from_be_bytes([c[8], c[9]]),
                weight: u16::from_be_bytes([c[10], c[11]]),
                learn: u32::from_be_bytes(c[12..16].try_into().unwrap_or_default()),
            })
            .collect();
        if !entries.is_sorted_by_key(|e| e.key) {
            entries.sort_by_key(|e| e.key);
        }
        Ok(Book { entries })
    }

    /// Entries in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the book has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries for a key, in file order.
    pub fn entries(&self, key: u64) -> &[Entry] {
        let start = self.entries.partition_point(|e| e.key < key);
        let end = self.entries.partition_point(|e| e.key <= key);
        &self.entries[start..end]
    }

    /// The legal book moves of `pos` with their weights (zero weights and
    /// entries that are no legal move are left out).
    pub fn moves(&self, pos: &Chess) -> Vec<(Move, u16)> {
        self.entries(key(pos))
            .iter()
            .filter(|e| e.weight > 0)
            .filter_map(|e| decode_move(pos, e.raw_move).map(|m| (m, e.weight)))
            .collect()
    }

    /// Plays up to `plies` book moves from `pos`, each picked with
    /// probability weight / total; `random(n)` returns a number in `0..n`.
    /// Stops early where the book has no move.
    pub fn walk(&self, pos: &Chess, plies: usize, mut random: impl FnMut(u64) -> u64) -> Vec<Move> {
        let mut pos = pos.clone();
        let mut line = Vec::new();
        for _ in 0..plies {
            let moves = self.moves(&pos);
            let total: u64 = moves.iter().map(|(_, w)| u64::from(*w)).sum();
            if total == 0 {
                break;
            }
            let mut pick = random(total);
            let Some(mv) = moves.iter().find_map(|(m, w)| {
                if pick < u64::from(*w) {
                    Some(*m)
                } else {
                    pick -= u64::from(*w);
                    None
                }
            }) else {
                break;
            };
            pos.play_unchecked(mv);
            line.push(mv);
        }
        line
    }
}

/// The legal move of `pos` an entry's move field stands for (castling is
/// written as the king moving onto its own rook, `e1h1`, with no
/// promotion).
pub fn decode_move(pos: &Chess, raw: u16) -> Option<Move> {
    let square = |bits: u16| {
        Square::from_coords(
            File::new(u32::from(bits & 7)),
            Rank::new(u32::from((bits >> 3) & 7)),
        )
    };
    let to = square(raw & 63);
    let from = square((raw >> 6) & 63);
    let promotion = match (raw >> 12) & 7 {
        0 => None,
        1 => Some(Role::Knight),
        2 => Some(Role::Bishop),
        3 => Some(Role::Rook),
        4 => Some(Role::Queen),
        _ => return None,
    };
    pos.legal_moves().into_iter().find(|m| match m {
        Move::Castle { king, rook } => *king == from && *rook == to && promotion.is_none(),
        _ => m.from() == Some(from) && m.to() == to && m.promotion() == promotion,
    })
}

/// The move field of a move (the inverse of [`decode_move`]).
pub fn encode_move(mv: &Move) -> u16 {
    let (from, to) = match mv {
        Move::Castle { king, rook } => (*king, *rook),
        _ => (mv.from().unwrap_or(mv.to()), mv.to()),
    };
    let promotion = match mv.promotion() {
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(Role::Queen) => 4,
        _ => 0,
    };
    let sq = |s: Square| (s.rank() as u16) << 3 | s.file() as u16;
    promotion << 12 | sq(from) << 6 | sq(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::uci::UciMove;

    fn play(moves: &str) -> Chess {
        let mut pos = Chess::default();
        for m in moves.split_whitespace() {
            let mv = m.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
            pos.play_unchecked(mv);
        }
        pos
    }

    /// The spec's test keys, reached by its moves and read from its FENs.
    #[test]
    fn keys_match_the_specification_examples() {
        let cases = [
            (
                "",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                0x463b96181691fc9c,
            ),
            (
                "e2e4",
                "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
                0x823c9b50fd114196,
            ),
            (
                "e2e4 d7d5",
                "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2",
                0x0756b94461c50fb0,
            ),
            (
                "e2e4 d7d5 e4e5",
                "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2",
                0x662fafb965db29d4,
            ),
            (
                "e2e4 d7d5 e4e5 f7f5",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                0x22a48b5a8e47ff78,
            ),
            (
                "e2e4 d7d5 e4e5 f7f5 e1e2",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR b kq - 0 3",
                0x652a607ca3f242c1,
            ),
            (
                "e2e4 d7d5 e4e5 f7f5 e1e2 e8f7",
                "rnbq1bnr/ppp1pkpp/8/3pPp2/8/8/PPPPKPPP/RNBQ1BNR w - - 0 4",
                0x00fdd303c946bdd9,
            ),
            (
                "a2a4 b7b5 h2h4 b5b4 c2c4",
                "rnbqkbnr/p1pppppp/8/8/PpP4P/8/1P1PPPP1/RNBQKBNR b KQkq c3 0 3",
                0x3c8123ea7b067637,
            ),
            (
                "a2a4 b7b5 h2h4 b5b4 c2c4 b4c3 a1a3",
                "rnbqkbnr/p1pppppp/8/8/P6P/R1p5/1P1PPPP1/1NBQKBNR b Kkq - 0 4",
                0x5c3f9b829b279560,
            ),
        ];
        for (moves, fen, want) in cases {
            assert_eq!(key(&play(moves)), want, "after '{moves}'");
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(shakmaty::CastlingMode::Standard)
                .unwrap();
            assert_eq!(key(&pos), want, "{fen}");
        }
    }

    fn entry(pos: &Chess, uci: &str, weight: u16) -> [u8; 16] {
        let mv = uci.parse::<UciMove>().unwrap().to_move(pos).unwrap();
        let mut b = [0u8; 16];
        b[..8].copy_from_slice(&key(pos).to_be_bytes());
        b[8..10].copy_from_slice(&encode_move(&mv).to_be_bytes());
        b[10..12].copy_from_slice(&weight.to_be_bytes());
        b
    }

    #[test]
    fn book_moves_decode_castling_and_walk_by_weight() {
        let start = Chess::default();
        let castle_pos: Chess = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let mut bytes = Vec::new();
        // Unsorted on purpose; one zero weight; one entry that is not legal.
        bytes.extend(entry(&castle_pos, "e1h1", 5));
        bytes.extend(entry(&start, "e2e4", 3));
        bytes.extend(entry(&start, "d2d4", 1));
        bytes.extend(entry(&start, "g1f3", 0));
        let mut bogus = entry(&start, "e2e4", 9);
        bogus[8..10].copy_from_slice(&0u16.to_be_bytes()); // a1a1
        bytes.extend(bogus);
        let book = Book::read(&bytes).unwrap();
        assert_eq!(book.len(), 5);
        let moves = book.moves(&start);
        assert_eq!(moves.len(), 2);
        let castle = book.moves(&castle_pos);
        assert!(matches!(castle[0].0, Move::Castle { .. }), "{castle:?}");
        // random(4) = 0..=2 picks e4 (weight 3), 3 picks d4.
        let e4 = book.walk(&start, 6, |n| {
            assert_eq!(n, 4);
            0
        });
        assert_eq!(e4.len(), 1);
        assert_eq!(e4[0].to(), Square::E4);
        let d4 = book.walk(&start, 1, |_| 3);
        assert_eq!(d4[0].to(), Square::D4);
        assert!(Book::read(&bytes[..17]).is_err());
    }

    /// Found by the `polyglot_book` fuzz target: a castling field with
    /// promotion bits (`e1h1` promoting to a bishop) decoded to castling,
    /// so the move written back differed from the entry's.
    #[test]
    fn castling_with_promotion_bits_is_no_move() {
        let pos: Chess = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(shakmaty::CastlingMode::Standard)
            .unwrap();
        let castle = "e1h1".parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        let raw = encode_move(&castle);
        assert_eq!(decode_move(&pos, raw), Some(castle));
        for promotion in 1..=7u16 {
            assert_eq!(
                decode_move(&pos, promotion << 12 | raw),
                None,
                "{promotion}"
            );
        }
    }
}
