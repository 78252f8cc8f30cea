// SPDX-License-Identifier: MIT
pragma solidity 0.8.28;

/// @title TestERC20: a plain ERC-20 for the tests, its decimals set at deployment
/// @notice Fixed supply minted to the deployer, transfer / approve /
/// transferFrom with revert reasons, an owner-only mint that fails with a
/// custom error, and ratio() that panics on a zero divisor: one source of
/// each revert kind (Error(string), custom error, Panic(uint256)).
/// Storage layout (used by state-override tests): slot 0 name, 1 symbol,
/// 2 totalSupply, 3 balanceOf, 4 allowance, 5 owner.
contract TestERC20 {
    string public name;
    string public symbol;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    address public owner;

    uint8 public immutable decimals;

    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);

    error Unauthorized(address caller);

    constructor(string memory name_, string memory symbol_, uint8 decimals_, uint256 supply) {
        decimals = decimals_;
        name = name_;
        symbol = symbol_;
        owner = msg.sender;
        _mint(msg.sender, supply);
    }

    function mint(address to, uint256 value) external {
        if (msg.sender != owner) revert Unauthorized(msg.sender);
        _mint(to, value);
    }

    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
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
        _transfer(from, to, value);
        return true;
    }

    /// @notice a / b; panics with code 0x12 when b is zero.
    function ratio(uint256 a, uint256 b) external pure returns (uint256) {
        return a / b;
    }

    function _transfer(address from, address to, uint256 value) internal {
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
