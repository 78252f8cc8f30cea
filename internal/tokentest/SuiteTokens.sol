// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title The token-analysis suite's test tokens
/// @notice Each contract is one behaviour the token-risk checks must catch:
/// a plain ERC-20, a honeypot whose sells revert for everyone but the
/// owner, a 10 % fee-on-transfer token, a blacklist/pause/mint token, a
/// token behind an EIP-1967 proxy, a token with a trading switch and a
/// max-transaction limit, and a token that self-destructs in its own
/// creation (EIP-6780: its logs remain, its code never lands). Written for
/// the suite (docs/token.md); compiled as SuiteTokens.md says.

interface IUniswapV2FactoryLike {
    function createPair(address a, address b) external returns (address);
}

/// @notice The ERC-20 every suite token builds on: balances at slot 0,
/// allowances at slot 1, totalSupply at slot 2; _update is the hook the
/// behaviours override.
abstract contract SuiteERC20 {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    uint256 public totalSupply;
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    function _init(string memory name_, string memory symbol_) internal {
        name = name_;
        symbol = symbol_;
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _update(msg.sender, to, value);
        return true;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        uint256 allowed = allowance[from][msg.sender];
        require(allowed >= value, "ERC20: insufficient allowance");
        if (allowed != type(uint256).max) allowance[from][msg.sender] = allowed - value;
        _update(from, to, value);
        return true;
    }

    function _update(address from, address to, uint256 value) internal virtual {
        _move(from, to, value);
    }

    function _move(address from, address to, uint256 value) internal {
        require(to != address(0), "ERC20: transfer to the zero address");
        require(balanceOf[from] >= value, "ERC20: transfer amount exceeds balance");
        unchecked {
            balanceOf[from] -= value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }

    function _mint(address to, uint256 value) internal {
        totalSupply += value;
        balanceOf[to] += value;
        emit Transfer(address(0), to, value);
    }
}

/// @notice A plain fixed-supply ERC-20 with no owner and no privileged
/// functions: the LOW_RISK reference.
contract PlainToken is SuiteERC20 {
    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _init(name_, symbol_);
        _mint(msg.sender, supply);
    }
}

/// @notice Ownable, with renounceOwnership.
abstract contract SuiteOwnable {
    address public owner;

    event OwnershipTransferred(address indexed previousOwner, address indexed newOwner);

    modifier onlyOwner() {
        require(msg.sender == owner, "Ownable: caller is not the owner");
        _;
    }

    function renounceOwnership() external onlyOwner {
        emit OwnershipTransferred(owner, address(0));
        owner = address(0);
    }
}

/// @notice A honeypot: anyone can buy, but a transfer into its Uniswap v2
/// pair (a sell) reverts unless it comes from the owner.
contract HoneypotToken is SuiteERC20, SuiteOwnable {
    address public immutable pair;

    constructor(string memory name_, string memory symbol_, uint256 supply, address factory, address quote) {
        _init(name_, symbol_);
        owner = msg.sender;
        pair = IUniswapV2FactoryLike(factory).createPair(address(this), quote);
        _mint(msg.sender, supply);
    }

    function _update(address from, address to, uint256 value) internal override {
        if (to == pair && from != owner) revert("Honeypot: sells are disabled");
        _move(from, to, value);
    }
}

/// @notice A fee-on-transfer token: buys from and sells to its pair pay
/// buyFee / sellFee basis points (10 % each at deployment) to the owner;
/// the owner can change both.
contract FeeToken is SuiteERC20, SuiteOwnable {
    address public immutable pair;
    uint256 public buyFee = 1000;
    uint256 public sellFee = 1000;

    constructor(string memory name_, string memory symbol_, uint256 supply, address factory, address quote) {
        _init(name_, symbol_);
        owner = msg.sender;
        pair = IUniswapV2FactoryLike(factory).createPair(address(this), quote);
        _mint(msg.sender, supply);
    }

    function setFees(uint256 buy, uint256 sell) external onlyOwner {
        require(buy <= 10000 && sell <= 10000, "fee too high");
        buyFee = buy;
        sellFee = sell;
    }

    function _update(address from, address to, uint256 value) internal override {
        uint256 bp = 0;
        if (from != owner && to != owner) {
            if (from == pair) bp = buyFee;
            else if (to == pair) bp = sellFee;
        }
        uint256 fee = value * bp / 10000;
        if (fee > 0) _move(from, owner, fee);
        _move(from, to, value - fee);
    }
}

/// @notice An owner-controlled token: the owner can blacklist addresses,
/// pause every transfer and mint without limit.
contract BlacklistToken is SuiteERC20, SuiteOwnable {
    mapping(address => bool) public isBlacklisted;
    bool public paused;

    constructor(string memory name_, string memory symbol_, uint256 supply) {
        _init(name_, symbol_);
        owner = msg.sender;
        _mint(msg.sender, supply);
    }

    function setBlacklist(address account, bool value) external onlyOwner {
        isBlacklisted[account] = value;
    }

    function pause() external onlyOwner {
        paused = true;
    }

    function unpause() external onlyOwner {
        paused = false;
    }

    function mint(address to, uint256 value) external onlyOwner {
        _mint(to, value);
    }

    function _update(address from, address to, uint256 value) internal override {
        require(!paused, "Pausable: paused");
        require(!isBlacklisted[from] && !isBlacklisted[to], "Blacklist: address is blacklisted");
        _move(from, to, value);
    }
}

/// @notice A token with a trading switch and a max-transaction limit:
/// until the owner opens trading, transfers to or from its pair revert
/// for everyone but the owner; a buy larger than maxTxAmount reverts.
contract TradingSwitchToken is SuiteERC20, SuiteOwnable {
    address public immutable pair;
    bool public tradingOpen;
    uint256 public maxTxAmount;

    constructor(string memory name_, string memory symbol_, uint256 supply, address factory, address quote) {
        _init(name_, symbol_);
        owner = msg.sender;
        pair = IUniswapV2FactoryLike(factory).createPair(address(this), quote);
        maxTxAmount = supply / 50;
        _mint(msg.sender, supply);
    }

    function openTrading() external onlyOwner {
        tradingOpen = true;
    }

    function setMaxTxAmount(uint256 value) external onlyOwner {
        maxTxAmount = value;
    }

    function _update(address from, address to, uint256 value) internal override {
        if (from != owner && to != owner && (from == pair || to == pair)) {
            require(tradingOpen, "Trading is not open");
            require(value <= maxTxAmount, "Exceeds the max transaction amount");
        }
        _move(from, to, value);
    }
}

/// @notice The implementation behind SuiteProxy: a plain ERC-20 set up by
/// initialize instead of a constructor, with an owner-only mint.
contract ProxiedTokenImpl is SuiteERC20, SuiteOwnable {
    bool private initialized;

    function initialize(string memory name_, string memory symbol_, uint256 supply, address owner_) external {
        require(!initialized, "already initialized");
        initialized = true;
        _init(name_, symbol_);
        owner = owner_;
        _mint(owner_, supply);
    }

    function mint(address to, uint256 value) external onlyOwner {
        _mint(to, value);
    }
}

/// @notice A minimal EIP-1967 proxy: the implementation at
/// bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1), the
/// admin at bytes32(uint256(keccak256("eip1967.proxy.admin")) - 1); the
/// admin can upgrade; every other call is delegated.
contract SuiteProxy {
    bytes32 internal constant IMPLEMENTATION_SLOT = 0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc;
    bytes32 internal constant ADMIN_SLOT = 0xb53127684a568b3173ae13b9f8a6016e243e63b6e8ee1178d6a717850b5d6103;

    event Upgraded(address indexed implementation);
    event AdminChanged(address previousAdmin, address newAdmin);

    constructor(address implementation, bytes memory data) {
        assembly {
            sstore(IMPLEMENTATION_SLOT, implementation)
            sstore(ADMIN_SLOT, caller())
        }
        emit Upgraded(implementation);
        emit AdminChanged(address(0), msg.sender);
        if (data.length > 0) {
            (bool ok, bytes memory ret) = implementation.delegatecall(data);
            if (!ok) {
                assembly {
                    revert(add(ret, 32), mload(ret))
                }
            }
        }
    }

    function upgradeTo(address implementation) external {
        address admin;
        assembly {
            admin := sload(ADMIN_SLOT)
        }
        require(msg.sender == admin, "proxy: not the admin");
        assembly {
            sstore(IMPLEMENTATION_SLOT, implementation)
        }
        emit Upgraded(implementation);
    }

    fallback() external payable {
        assembly {
            let impl := sload(IMPLEMENTATION_SLOT)
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), impl, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 { revert(0, returndatasize()) }
            default { return(0, returndatasize()) }
        }
    }

    receive() external payable {}
}

/// @notice A token that mints its supply and self-destructs in its own
/// creation transaction: since EIP-6780 that removes the account, so its
/// address has Transfer logs but no code.
contract SelfDestructToken is SuiteERC20 {
    constructor(uint256 supply) {
        _init("Gone", "GONE");
        _mint(msg.sender, supply);
        selfdestruct(payable(msg.sender));
    }
}
